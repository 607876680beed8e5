package test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The web chat's "I have an invite" against the real binary: the owner's
// one-use invite link, opened in a browser, shows the invite filled in;
// Join makes a key in the browser, joins, and the page is connected as a
// new hub member in one step (hive member list names it, it lists the
// open channels). The same link in a second browser is refused with the
// hub's reason, shown word for word, and that browser keeps no key.
func TestWebInviteSignIn(t *testing.T) {
	w := startWebTeam(t)
	var inv struct{ Link string }
	if err := json.Unmarshal([]byte(w.cli.ok("invite", "--profile", "owner", "--json")), &inv); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(inv.Link, w.h.URL+"?") {
		t.Fatalf("the invite's link %q is not the hub's page %s", inv.Link, w.h.URL)
	}
	before := hubMemberKeys(t, w)
	w.b.open(inv.Link)
	w.b.waitVisible(tid("invite-join"))
	if got := evalAs[string](w.b, fmt.Sprintf(`document.querySelector(%q).value`, tid("invite-link"))); got != inv.Link {
		t.Fatalf("the invite field holds %q, want the link", got)
	}
	w.b.screenshot("invite-desktop")
	w.b.do("phone width", chromedp.EmulateViewport(390, 760))
	w.b.screenshot("invite-phone")
	w.b.click(tid("invite-join"))
	w.b.waitState("connected")
	w.b.waitUntil("the open channels listed", `document.body.textContent.includes("lobby")`)
	if evalAs[bool](w.b, `location.search.includes("c=")`) {
		t.Errorf("the used claim stays in the address bar")
	}
	after := hubMemberKeys(t, w)
	if len(after) != len(before)+1 {
		t.Fatalf("hive member list: %d members before, %d after joining", len(before), len(after))
	}
	w.b.screenshot("invite-joined-phone")
	w.b.noConsoleErrors()

	other := newBrowser(t, w.h.Pin)
	other.open(inv.Link)
	other.click(tid("invite-join"))
	want := "restricted: that invite code has been used 1 of 1 times; ask for a new one"
	other.waitUntil("the refusal under the invite", fmt.Sprintf(`document.querySelector("#invite-link")?.closest("form")?.querySelector(".status-line.err")?.textContent === %q`, want))
	if st := evalAs[string](other, fmt.Sprintf(`document.querySelector(%q).dataset.state`, tid("connection-state"))); st == "connected" {
		t.Errorf("the refused browser's state is connected")
	}
	other.screenshot("invite-used-up")
	other.open(w.h.URL)
	other.waitVisible(tid("pair-uri")) // still signed out: no key was kept
}

// hubMemberKeys is `hive member list --json` as the owner: the hub's members.
func hubMemberKeys(t testing.TB, w *webTeam) []string {
	t.Helper()
	var keys []string
	for _, line := range strings.Split(strings.TrimSpace(w.cli.ok("member", "list", "--profile", "owner", "--json")), "\n") {
		var m struct{ Pubkey string }
		if json.Unmarshal([]byte(line), &m) == nil && m.Pubkey != "" {
			keys = append(keys, m.Pubkey)
		}
	}
	return keys
}
