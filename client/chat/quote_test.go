package chat_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// A message quoted from outside the pages loaded (ApplyQuoted) shows in
// its quotes without becoming a row; MissingQuotes names it until then,
// once; a row of the same id loaded later takes its place.
func TestApplyQuotedMessageIsNoRow(t *testing.T) {
	alice, bob := strings.Repeat("a", 64), strings.Repeat("b", 64)
	far := strings.Repeat("f", 64)
	m := chat.New(bob)
	page := []nostr.Event{
		{ID: "q1", PubKey: bob, CreatedAt: 20, Kind: 9, Tags: nostr.Tags{{"h", "general"}, {"q", far, "", alice}}, Content: "agreed"},
		{ID: "q2", PubKey: bob, CreatedAt: 21, Kind: 9, Tags: nostr.Tags{{"h", "general"}, {"q", far}}, Content: "me too"},
		{ID: "plain", PubKey: bob, CreatedAt: 22, Kind: 9, Tags: nostr.Tags{{"h", "general"}}, Content: "hi"},
	}
	m.ApplyAll(page)
	if got := m.MissingQuotes(page, 10); !slices.Equal(got, []string{far}) {
		t.Fatalf("MissingQuotes = %v, want [%s]", got, far[:8])
	}
	m.ApplyQuoted(&nostr.Event{ID: far, PubKey: alice, CreatedAt: 5, Kind: 9, Tags: nostr.Tags{{"h", "ops"}}, Content: "rollback plan\nstep 1"})
	if got := m.MissingQuotes(page, 10); len(got) != 0 {
		t.Fatalf("MissingQuotes after ApplyQuoted = %v", got)
	}
	if len(m.Timeline("ops")) != 0 || len(m.Timeline("general")) != 3 {
		t.Fatalf("the quoted message became a row: ops %v", m.Timeline("ops"))
	}
	r, _ := m.Row("q2")
	if r.Quote == nil || r.Quote.Author != alice || r.Quote.Text != "rollback plan" {
		t.Fatalf("quote = %+v", r.Quote)
	}
	m.Apply(&nostr.Event{ID: "edit", PubKey: alice, CreatedAt: 30, Kind: 40003, Tags: nostr.Tags{{"h", "ops"}, {"e", far}}, Content: "rollback plan v2"})
	m.Apply(&nostr.Event{ID: far, PubKey: alice, CreatedAt: 5, Kind: 9, Tags: nostr.Tags{{"h", "ops"}}, Content: "rollback plan\nstep 1"})
	if r, _ = m.Row("q1"); r.Quote.Text != "rollback plan v2" || len(m.Timeline("ops")) != 1 {
		t.Fatalf("once loaded as a row: quote %+v, ops %d rows", r.Quote, len(m.Timeline("ops")))
	}
}

// A workflow run's card quotes nothing: its q tag names the run's claim
// (as web/test/quote.test.js).
func TestRunCardQuotesNothing(t *testing.T) {
	m := chat.New(strings.Repeat("b", 64))
	card := nostr.Event{ID: "card", PubKey: strings.Repeat("c", 64), CreatedAt: 20, Kind: 9, Content: "▶ deploy · run dddddddd",
		Tags: nostr.Tags{{"h", "ops"}, {"q", strings.Repeat("d", 64)}, {"a", "30460:" + strings.Repeat("a", 64) + ":deploy"}, {"hops", "1"}}}
	m.Apply(&card)
	if r, ok := m.Row("card"); !ok || r.Quote != nil {
		t.Fatalf("card row: %+v %v", r.Quote, ok)
	}
	if q := m.MissingQuotes([]nostr.Event{card}, 10); len(q) != 0 {
		t.Fatalf("missing quotes: %v", q)
	}
}
