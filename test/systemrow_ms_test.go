package test

import (
	"testing"

	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// TestSystemRowsKeepTheirChangesOrder: the hub's system rows carry their
// change's milliseconds (its ms tag), so "alice created the channel" and
// "bob joined" of one second show in the order the changes were made, not
// by their ids (seen in hive chat: either order, with no ms tag on either
// row).
func TestSystemRowsKeepTheirChangesOrder(t *testing.T) {
	_, tm := startTeam(t)
	create := tm.alice.sign(t, 9007, "", nostr.Tag{"h", "ms-order"}, nostr.Tag{"name", "ms-order"}, nostr.Tag{"visibility", "open"}, nostr.Tag{"ms", "950"})
	tm.a.must(create)
	join := tm.bob.sign(t, 9021, "", nostr.Tag{"h", "ms-order"}, nostr.Tag{"ms", "951"})
	join.CreatedAt = create.CreatedAt
	if err := join.Sign(tm.bob.sk); err != nil {
		t.Fatal(err)
	}
	tm.b.must(join)
	rows, closed := tm.b.req("sys", nostr.Filter{Kinds: []int{40099}, Tags: nostr.TagMap{"h": {"ms-order"}}})
	if closed != "" {
		t.Fatalf("REQ closed: %s", closed)
	}
	at := map[string]int64{}
	for _, ev := range rows {
		for _, trigger := range []*nostr.Event{create, join} {
			if ev.Tags.FindWithValue("e", trigger.ID) != nil {
				at[trigger.ID] = chat.Millis(ev)
				if got, want := at[trigger.ID], chat.Millis(trigger); got != want {
					t.Fatalf("system row of kind %d's change at %d ms, the change at %d ms: %v", trigger.Kind, got, want, ev.Tags)
				}
			}
		}
	}
	if len(at) != 2 || at[create.ID] >= at[join.ID] {
		t.Fatalf("system rows of the creation and the join: %v", at)
	}
}
