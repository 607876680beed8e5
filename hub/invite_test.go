package hub

import (
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
)

// The claim id a revocation names is the one kinds.InviteClaimID reads
// from a claim the hub made (the CLI revokes by claim or link with it).
func TestInviteClaimIDMatchesTheHub(t *testing.T) {
	k, err := identity.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	h := &Hub{keys: k}
	code, cl, err := h.makeClaim(k.PublicHex, 3, 1_900_000_000)
	if err != nil {
		t.Fatal(err)
	}
	id, err := kinds.InviteClaimID(code)
	if err != nil || id != cl.id || !kinds.IsInviteClaimID(id) {
		t.Fatalf("InviteClaimID(%s) = %q, %v; the hub's id is %q", code, id, err, cl.id)
	}
	if _, err := kinds.InviteClaimID(code[:40]); err == nil {
		t.Errorf("a cut claim has an id")
	}
}
