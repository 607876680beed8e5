package test

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// TestRefusedAuthSaysWhy: once the hub has refused a key's AUTH, that
// connection's EVENT, REQ and COUNT are answered restricted: with the
// refusal's reason (not auth-required:, on which clients such as NDK wait to
// authenticate again until they time out); a protocol mistake in the AUTH
// (invalid:) still leaves auth-required:, and a member's AUTH on the same
// connection afterwards works (with --invites off: otherwise the stranger is a
// NIP-43 guest, test/nip43_test.go). The NDK and nostr-tools side of it:
// test/interop/refused_auth.test.js.
func TestRefusedAuthSaysWhy(t *testing.T) {
	h := startHubProcOn(t, []string{"--invites", "off"}) // else a stranger is a NIP-43 guest (test/nip43_test.go)
	stranger := newKey(t)
	npub := npubOf(stranger.pk)
	want := "restricted: AUTH was refused: " + npub + " is not a member of this hub"

	c := dialRaw(t, h.URL)
	if ok, msg := c.auth(stranger, h.URL); ok || !strings.HasPrefix(msg, "restricted: "+npub+" is not a member") {
		t.Fatalf("stranger's AUTH: ok=%v %q", ok, msg)
	}
	if ok, msg := c.publish(stranger.sign(t, 1, "hi")); ok || !strings.HasPrefix(msg, want) {
		t.Fatalf("EVENT after the refused AUTH: ok=%v %q, want %q", ok, msg, want)
	}
	if _, msg := c.req("r", nostr.Filter{Kinds: []int{1}}); !strings.HasPrefix(msg, want) {
		t.Fatalf("REQ after the refused AUTH: CLOSED %q, want %q", msg, want)
	}
	c.send(`["COUNT","n",{"kinds":[1]}]`)
	if m := c.expect("CLOSED"); !strings.HasPrefix(str(m[2]), want) {
		t.Fatalf("COUNT after the refused AUTH: CLOSED %s, want %q", m[2], want)
	}
	// the member's AUTH on the same connection is taken, and clears it
	if ok, msg := c.auth(h.admin, h.URL); !ok {
		t.Fatalf("admin AUTH after the refusal: %s", msg)
	}
	if ok, msg := c.publish(h.admin.sign(t, 1, "admitted")); !ok {
		t.Fatalf("EVENT after a successful AUTH: %s", msg)
	}
}
