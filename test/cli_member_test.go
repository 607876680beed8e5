package test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 30, item 7: hive read --json and tail --json name the member a row's
// author acts for: a paired device's message (author the device's key) has
// "member" its owner's key, the owner's own message the owner's (real hive
// pair / hive join, real binary).
func TestRowJSONNamesTheMember(t *testing.T) {
	h := startPairingHub(t)
	owner := keyOf(t, filepath.Join(h.data, "admin.key")).PublicHex
	h.owner.ok("channel", "create", "vault", "--private")
	mine := rows(t, h.owner.ok("send", "vault", "from the owner", "--json"))[0]
	laptop, join := pairCLI(t, h)
	device := join["device"].(string)
	fromLaptop := rows(t, laptop.ok("send", "vault", "from the laptop", "--json"))[0]
	if fromLaptop.Author != device {
		t.Fatalf("the laptop's row is by %s, want the device %s", fromLaptop.Author, device)
	}
	for _, args := range [][]string{{"read", "vault", "--json"}, {"tail", "vault", "--json"}} {
		for _, who := range []*cli{h.owner, laptop} {
			out := who.ok(args...)
			member := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct{ ID, Author, Member string }
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatalf("not JSON: %q", l)
				}
				member[r.ID] = r.Member
			}
			if member[mine.ID] != owner || member[fromLaptop.ID] != owner {
				t.Fatalf("hive %s: member of the owner's row %q, of the laptop's %q, want both the owner %s\n%s",
					strings.Join(args, " "), member[mine.ID], member[fromLaptop.ID], owner, out)
			}
		}
	}
}
