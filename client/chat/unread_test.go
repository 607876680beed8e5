package chat_test

import (
	"fmt"
	"testing"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// A mark reads what the member has seen, not the whole second of its
// newest row: a message another member writes in that second after the
// mark stays unread, in the channel and in its thread (Seen, ThreadSeen).
func TestSeenLeavesTheRestOfItsSecondUnread(t *testing.T) {
	const at = nostr.Timestamp(1700000100)
	me, alice := keys[0], keys[1]
	msg := func(id, author string, at nostr.Timestamp, tags ...nostr.Tag) *nostr.Event {
		return &nostr.Event{ID: id, PubKey: author, Kind: kinds.Message, CreatedAt: at, Tags: append(nostr.Tags{{"h", "c1"}}, tags...), Content: id}
	}
	m := chat.New(me)
	m.Apply(msg("q", me, at))                                      // the member's question
	m.Apply(msg("old", alice, at-1))                               // seen
	m.Apply(msg("seen", alice, at))                                // seen, in the newest second
	m.Apply(msg("r1", alice, at, nostr.Tag{"e", "q", "", "root"})) // a reply, seen
	read := chat.Positions{"c1": m.Seen("c1"), "thread:q": m.ThreadSeen("q")}
	if u := m.Unread("c1", read); u.Count != 0 {
		t.Fatalf("after the mark: %+v unread, want none", u)
	}
	// alice answers and mentions the member in the second of the mark
	m.Apply(msg("r2", alice, at, nostr.Tag{"e", "q", "", "root"}, nostr.Tag{"p", me}))
	m.Apply(msg("late", alice, at, nostr.Tag{"p", me}))
	if u := m.Unread("c1", read); u.Count != 2 || u.Mentions != 2 {
		t.Fatalf("rows written in the mark's second after it: %+v, want 2 unread, 2 mentions", u)
	}
	if u := m.ThreadUnread("q", read); u.Count != 1 || u.FirstUnread != "r2" {
		t.Fatalf("the thread after its mark: %+v, want r2 unread", u)
	}
	// marking again reads them; the plain position of the second reads it whole
	read["c1"] = m.Seen("c1").Merge(read["c1"])
	if u := m.Unread("c1", read); u.Count != 0 {
		t.Fatalf("after the second mark: %+v unread", u)
	}
	if got := read["c1"].String(); got != fmt.Sprintf("%d late r1 r2 seen", at) {
		t.Fatalf("the position is %q", got) // the member's own row is never unread: not named
	}
	if u := m.Unread("c1", chat.Positions{"c1": kinds.ReadAt(at)}); u.Count != 0 {
		t.Fatalf("the plain position: %+v unread", u)
	}
}

// Past kinds.MaxReadIDs rows in its second a mark is the plain position; a
// second with no row that may be unread gives the plain position of the
// second before.
func TestSeenBounds(t *testing.T) {
	const at = nostr.Timestamp(1700000200)
	m := chat.New(keys[0])
	m.Apply(&nostr.Event{ID: "mine", PubKey: keys[0], Kind: kinds.Message, CreatedAt: at, Tags: nostr.Tags{{"h", "c1"}}})
	if got := m.Seen("c1"); !got.Equal(kinds.ReadAt(at - 1)) {
		t.Fatalf("only the member's own row in the second: %v, want %d", got, at-1)
	}
	for i := range kinds.MaxReadIDs {
		m.Apply(&nostr.Event{ID: fmt.Sprint("m", i), PubKey: keys[1], Kind: kinds.Message, CreatedAt: at, Tags: nostr.Tags{{"h", "c1"}}})
	}
	if got := m.Seen("c1"); got.At != at || len(got.IDs) != kinds.MaxReadIDs {
		t.Fatalf("%d rows: %v", kinds.MaxReadIDs, got)
	}
	m.Apply(&nostr.Event{ID: "one more", PubKey: keys[1], Kind: kinds.Message, CreatedAt: at, Tags: nostr.Tags{{"h", "c1"}}})
	if got := m.Seen("c1"); !got.Equal(kinds.ReadAt(at)) {
		t.Fatalf("%d rows: %v, want the plain %d", kinds.MaxReadIDs+1, got, at)
	}
	if got := m.Seen("c2"); !got.Equal(kinds.ReadPosition{}) {
		t.Fatalf("no rows: %v", got)
	}
}
