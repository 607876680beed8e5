package test

import (
	"encoding/json"
	"path/filepath"
	"strings"
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
	create, join, rows := createThenJoin(t, tm, "ms-order", []nostr.Tag{{"ms", "950"}}, []nostr.Tag{{"ms", "951"}})
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

// The same through the real CLI: `hive channel create` and `hive channel
// join` run one after the other (mostly within one second) read back, in
// `hive read`, as "created" then "joined", every time. Their events carried
// no ms tag (only timeline kinds did), so the two rows of one second came in
// the order of their ids: "bob joined" first about half the time.
func TestCLIChannelCreatedBeforeJoined(t *testing.T) {
	h := startWebHub(t)
	c := newCLI(t)
	setUpCLITeam(t, c, cliTeamSpec{hub: h.WS, pin: h.Pin, admin: "owner", adminKey: filepath.Join(h.Data, "admin.key"),
		members: []string{"alice", "bob"}, creator: "alice", channels: []string{"c1", "c2", "c3", "c4", "c5", "c6"}})
	for _, ch := range []string{"c1", "c2", "c3", "c4", "c5", "c6"} {
		var shown []string
		for _, l := range strings.Split(strings.TrimSpace(c.ok("read", ch, "--json", "--profile", "bob")), "\n") {
			var row struct{ Shown string }
			json.Unmarshal([]byte(l), &row)
			shown = append(shown, row.Shown)
		}
		if len(shown) != 2 || shown[0] != "alice created the channel" || shown[1] != "bob joined" {
			t.Fatalf("#%s reads %q, want alice created the channel, then bob joined", ch, shown)
		}
	}
}
