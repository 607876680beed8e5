package test

import (
	"strings"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// A key the hub does not admit: the sign-in screen shows the hub's reason
// word for word, as one line of text, and the page's connection ends
// (refused or closed).
func TestWebRefusalShownAsOneLine(t *testing.T) {
	h := startWebHub(t)
	stranger, err := identity.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	nsec, _ := nip19.EncodePrivateKey(stranger.SecretHex)
	b := newBrowser(t, h.Pin)
	b.open(h.URL)
	b.waitVisible(tid("key-import"))
	b.setValue(tid("key-import"), nsec)
	b.click(tid("key-import-submit"))
	want := "restricted: " + stranger.Npub() + " is not a member of this hub; join with an invite from a hub admin, ask a hub admin to add you, or authenticate with your owner's NIP-OA auth tag"
	b.waitUntil("the sign-in screen shows the refusal", `(() => { const e = document.querySelector(".signin .err"); return !!e && e.textContent.includes("not a member") })()`)
	if got := evalAs[string](b, `document.querySelector(".signin .err").textContent`); strings.TrimSpace(got) != want {
		t.Fatalf("the sign-in screen says %q, want the hub's reason %q", got, want)
	}
	if st := b.waitState("refused", "closed"); st != "refused" && st != "closed" {
		t.Fatalf("connection-state %s, want refused or closed", st)
	}
	b.noConsoleErrors()
	b.screenshot("refused")
}
