package test

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// createThenJoin has alice create the open channel ch and bob join it in
// the same second, with extra tags on each (e.g. ms), and returns both and
// the channel's system rows (40099) as bob reads them.
func createThenJoin(t *testing.T, tm team, ch string, createTags, joinTags []nostr.Tag) (create, join *nostr.Event, rows []*nostr.Event) {
	t.Helper()
	create = tm.alice.sign(t, 9007, "", append([]nostr.Tag{{"h", ch}, {"name", ch}, {"visibility", "open"}}, createTags...)...)
	tm.a.must(create)
	join = tm.bob.sign(t, 9021, "", append([]nostr.Tag{{"h", ch}}, joinTags...)...)
	join.CreatedAt = create.CreatedAt
	if err := join.Sign(tm.bob.sk); err != nil {
		t.Fatal(err)
	}
	tm.b.must(join)
	rows, closed := tm.b.req("sys", nostr.Filter{Kinds: []int{40099}, Tags: nostr.TagMap{"h": {ch}}})
	if closed != "" {
		t.Fatalf("REQ closed: %s", closed)
	}
	return create, join, rows
}

// TestSystemRowDatedByItsChange: a channel created and joined in one second
// moves its state clock a second on (the replaceable 39000-39002 need it),
// but the join's 40099 row is dated by the join itself, so a message sent
// after the join never sorts before "bob joined" (seen failing before: the
// row was dated T+1, after bob's own first message of second T).
func TestSystemRowDatedByItsChange(t *testing.T) {
	_, tm := startTeam(t)
	at := nostr.Now()
	create, join, rows := createThenJoin(t, tm, "same-second", nil, nil)
	var joined *nostr.Event
	for _, ev := range rows {
		if ev.Tags.FindWithValue("e", join.ID) != nil {
			joined = ev
		}
	}
	if joined == nil {
		t.Fatalf("no system row for the join among %d rows", len(rows))
	}
	if joined.CreatedAt != join.CreatedAt {
		t.Fatalf("the join's system row is dated %d, the join %d (now %d)", joined.CreatedAt, join.CreatedAt, at)
	}
	meta, _ := tm.b.req("meta", nostr.Filter{Kinds: []int{39002}, Tags: nostr.TagMap{"d": {"same-second"}}})
	if len(meta) != 1 || meta[0].CreatedAt <= create.CreatedAt {
		t.Fatalf("the members snapshot after the join: %d events, want one dated after the creation's second", len(meta))
	}
}
