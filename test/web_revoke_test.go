package test

import (
	"strings"
	"testing"
)

// A paired browser whose device the owner revokes with `hive device
// revoke` is told so and signed out: the sign-in screen says why, the page
// is signed out, and the browser keeps no key (its IndexedDB is gone).
func TestWebRevokedDeviceSignedOut(t *testing.T) {
	w := startWebTeam(t)
	device := w.pairBrowser(t)
	w.openChannel(t, "room")
	npub := npubOf(device)
	w.cli.ok("device", "revoke", "--device", npub, "--profile", "owner")
	w.b.waitVisible(tid("pair-uri"))
	w.b.waitState("signed-out")
	if msg := w.b.text(".signin .err"); !strings.HasPrefix(msg, "This browser was signed out: restricted: ") || !strings.Contains(msg, "revoked by its owner") || !strings.HasSuffix(msg, ". Pair it again to continue.") {
		t.Fatalf("the sign-in screen after the revocation says %q, want the hub's reason (the attestation revoked by its owner: from the cut-off or from the refused AUTH of a reconnect)", msg)
	}
	if dbs := awaitAs[[]string](w.b, `indexedDB.databases().then(ds => ds.map(d => d.name))`); len(dbs) != 0 {
		t.Fatalf("the browser keeps databases after its device was revoked: %v", dbs)
	}
	w.b.screenshot("revoked")
	w.b.noConsoleErrors()
}
