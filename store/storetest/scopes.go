package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// scopeLog stores one event of each way an event is tied to a channel, in
// channel "vault", and the same in "lobby", plus events tied to none.
func scopeLog(t *testing.T, s Store) (vault, lobby, free []*nostr.Event, reader Signer) {
	a, reader := NewSigner(t), NewSigner(t)
	at := int64(1_700_000_000)
	for _, ch := range []string{"vault", "lobby"} {
		msg := a.Event(t, 9, at, "hi", nostr.Tag{"h", ch})
		at++
		evs := []*nostr.Event{
			msg,
			a.Event(t, 1, at, "note with h", nostr.Tag{"h", ch}),
			a.Event(t, 39000, at+1, "", nostr.Tag{"d", ch}),
			a.Event(t, 7, at+2, "+", nostr.Tag{"e", msg.ID}),
			// reader's deletion of a's message: stored, deletes nothing
			reader.Event(t, 5, at+3, "", nostr.Tag{"e", "00"}, nostr.Tag{"e", msg.ID}),
		}
		at += 10
		mustSave(t, s, evs...)
		if ch == "vault" {
			vault = evs
		} else {
			lobby = evs
		}
	}
	free = []*nostr.Event{
		a.Event(t, 1, at, "no channel"),
		a.Event(t, 30078, at+1, "a's read state", nostr.Tag{"d", "rs"}),
		reader.Event(t, 30078, at+2, "reader's read state", nostr.Tag{"d", "rs"}),
	}
	mustSave(t, s, free...)
	return vault, lobby, free, reader
}

// events decodes rows read from the log, checking that the columns read
// beside each one's JSON are the event's own.
func events(t testing.TB, found []store.Stored) []*nostr.Event {
	t.Helper()
	out := make([]*nostr.Event, len(found))
	for i := range found {
		st := &found[i]
		ev, err := st.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if st.ID != ev.ID || st.PubKey != ev.PubKey || st.Kind != ev.Kind || st.CreatedAt != ev.CreatedAt {
			t.Fatalf("row columns %s %s %d %d differ from its JSON %s", st.ID, st.PubKey, st.Kind, st.CreatedAt, st.Raw)
		}
		out[i] = ev
	}
	return out
}

func scopeHides(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	vault, lobby, free, reader := scopeLog(t, s)
	sc := &store.Scope{Reader: reader.PK, Hidden: []string{"vault", "elsewhere"}, AuthorOnly: []int{30078}, RecipientOnly: []int{24200}}
	want := idsOf(append(append([]*nostr.Event{}, lobby...), free[0], free[2]))
	got, err := s.QueryRaw(ctx, nostr.Filter{}, sc)
	if err != nil {
		t.Fatal(err)
	}
	if g := idsOf(events(t, got)); !slices.Equal(g, want) {
		t.Fatalf("scoped query returned %d events, want %d", len(g), len(want))
	}
	for i, ev := range events(t, got) {
		if raw, _ := ev.MarshalJSON(); string(raw) != string(got[i].Raw) {
			t.Fatalf("stored JSON differs from the event's canonical JSON: %s", got[i].Raw)
		}
	}
	n, err := s.CountFilters(ctx, []nostr.Filter{{}, {Kinds: []int{9}}}, sc)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("scoped COUNT = %d, %v; want %d", n, err, len(want))
	}
	// Authors: the author-only events of every key listed count as the
	// reader's own (a member and its paired devices), in REQ and COUNT alike.
	both := *sc
	both.Authors = []string{reader.PK, free[1].PubKey}
	got, err = s.QueryRaw(ctx, nostr.Filter{Kinds: []int{30078}}, &both)
	if g := idsOf(events(t, got)); err != nil || !slices.Equal(g, idsOf(free[1:])) {
		t.Fatalf("author-only with Authors: %v, %v; want both read states", g, err)
	}
	if n, err := s.CountFilters(ctx, []nostr.Filter{{Kinds: []int{30078}}}, sc); err != nil || n != 1 {
		t.Fatalf("author-only COUNT without Authors = %d, %v; want the reader's own", n, err)
	}
	// many hidden channels (a backend may pass a long list differently): same answer
	many := []string{"vault"}
	for i := 0; i < 100; i++ {
		many = append(many, fmt.Sprint("other-", i))
	}
	if n, err := s.CountFilters(ctx, []nostr.Filter{{}}, &store.Scope{Reader: sc.Reader, Hidden: many, AuthorOnly: sc.AuthorOnly}); err != nil || n != int64(len(want)) {
		t.Fatalf("scoped COUNT with %d hidden channels = %d, %v; want %d", len(many), n, err, len(want))
	}
	// every way of belonging to vault is hidden, each looked up on its own
	for _, ev := range vault {
		if got, _ := s.QueryRaw(ctx, nostr.Filter{IDs: []string{ev.ID}}, sc); len(got) != 0 {
			t.Errorf("kind %d of the hidden channel was served", ev.Kind)
		}
	}
	// limit counts readable rows: the newest readable event comes first
	// whatever unreadable ones are newer.
	if got, _ := s.QueryRaw(ctx, nostr.Filter{Kinds: []int{9, 1, 39000, 7, 5}, Limit: 1}, &store.Scope{Reader: reader.PK, Hidden: []string{"lobby"}}); len(got) != 1 || got[0].ID != free[0].ID {
		t.Fatalf("limit 1 with lobby hidden: %v", got)
	}
	if got, _ := s.QueryRaw(ctx, nostr.Filter{Tags: nostr.TagMap{"h": {"vault"}}}, sc); len(got) != 0 {
		t.Fatalf("#h of the hidden channel returned %d events", len(got))
	}
}

func recipientOnly(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a, b, c := NewSigner(t), NewSigner(t), NewSigner(t)
	frame := a.Event(t, 4, 100, "to b", nostr.Tag{"p", b.PK})
	note := a.Event(t, 1, 101, "public")
	mustSave(t, s, frame, note)
	for _, tc := range []struct {
		who  Signer
		want []string
	}{{a, idsOf([]*nostr.Event{frame, note})}, {b, idsOf([]*nostr.Event{frame, note})}, {c, []string{note.ID}}} {
		got, err := s.QueryRaw(ctx, nostr.Filter{}, &store.Scope{Reader: tc.who.PK, RecipientOnly: []int{4}})
		if err != nil {
			t.Fatal(err)
		}
		if g := idsOf(events(t, got)); !slices.Equal(g, tc.want) {
			t.Errorf("reader %s sees %v, want %v", tc.who.PK[:8], g, tc.want)
		}
	}
}

func unreadable(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	vault, lobby, _, reader := scopeLog(t, s)
	sc := &store.Scope{Reader: reader.PK, Hidden: []string{"vault"}}
	if id, err := s.Unreadable(ctx, []string{lobby[0].ID, vault[0].ID, "ff"}, sc); err != nil || id != vault[0].ID {
		t.Fatalf("Unreadable = %q, %v; want the vault message", id, err)
	}
	if id, err := s.Unreadable(ctx, []string{lobby[0].ID, "ff"}, sc); err != nil || id != "" {
		t.Fatalf("Unreadable of readable and unknown ids = %q, %v; want none", id, err)
	}
	if id, _ := s.Unreadable(ctx, []string{vault[0].ID}, nil); id != "" {
		t.Fatalf("no scope: %q unreadable", id)
	}
}
