package test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// addProfile makes a CLI profile with a new key, admitted to the hub by
// the owner and named name; it returns its hex pubkey.
func (w *webTeam) addProfile(t testing.TB, name string) string {
	t.Helper()
	var p struct{ Npub string }
	json.Unmarshal([]byte(w.cli.ok("profile", "add", name, "--hub", w.h.WS, "--pin", w.h.Pin, "--new-key", "--json")), &p)
	w.cli.ok("member", "add", p.Npub, "--profile", "owner")
	w.cli.ok("profile", "name", name, "--profile", name)
	return keyOf(t, profileOf(t, w.cli, name).Key).PublicHex
}

// listed says whether `hive channel list --all` as profile shows channel.
func (w *webTeam) listed(t testing.TB, profile, channel string) bool {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(w.cli.ok("channel", "list", "--all", "--profile", profile, "--json")), "\n") {
		var ch struct{ ID string }
		if json.Unmarshal([]byte(line), &ch) == nil && ch.ID == channel {
			return true
		}
	}
	return false
}

// waitStored waits until the main timeline shows a stored (not pending)
// message whose text is text, and returns its event id.
func (w *webTeam) waitStored(t testing.TB, text string) string {
	t.Helper()
	find := fmt.Sprintf(`[...document.querySelectorAll(%q)].find(m => m.querySelector('[data-testid="message-text"]')?.textContent === %q)`,
		tid("timeline")+` [data-testid="message"]:not([data-pending])`, text)
	w.b.waitUntil("a stored message "+text, "!!"+find)
	return evalAs[string](w.b, find+".dataset.eventId")
}

// waitRefusal waits until the page's one refusal line says exactly want.
func (w *webTeam) waitRefusal(t testing.TB, want string) {
	t.Helper()
	w.b.waitUntil("the refusal line "+want, fmt.Sprintf(`document.querySelector(%q)?.textContent === %q`, tid("refusal"), want))
}

// The owner creates a private channel in the page (name, about, private),
// adds bob to it by name, and writes in it: bob's CLI lists the channel and
// reads the message; carol, a member of the hub but not of the channel,
// neither sees it nor reads it. The hub's refusals (a channel that exists,
// a name nobody has) show as their reason text.
func TestWebCreatesPrivateChannel(t *testing.T) {
	w := startWebTeam(t)
	w.addProfile(t, "carol")
	w.signInAsOwner(t)
	w.b.waitVisible(`[data-testid="channel-item"][aria-current="true"]`)

	w.b.click(tid("channel-new"))
	w.b.waitUntil("the name input focused", `document.activeElement?.dataset.testid === "channel-new-name"`)
	w.b.typeInto(tid("channel-new-name"), "Launch plans")
	w.b.typeInto(tid("channel-new-about"), "what ships on Friday")
	w.b.click(tid("channel-new-private"))
	w.b.screenshot("new-channel-form")
	w.b.click(tid("channel-new-submit"))
	const id = "launch-plans"
	w.b.waitVisible(channelItem(id) + `[aria-current="true"]`)
	w.b.waitUntil("the channel's head", fmt.Sprintf(`document.querySelector(%q).textContent === "what ships on Friday" && document.querySelector(%q).textContent === "1 member · private"`,
		tid("channel-about"), tid("channel-members")))

	w.b.click(tid("member-add"))
	w.b.waitUntil("the add input focused", `document.activeElement?.dataset.testid === "member-add-input"`)
	w.b.do("type bob", chromedp.KeyEvent("bob\r"))
	w.b.waitUntil("bob added", fmt.Sprintf(`document.querySelector(%q).textContent === "2 members · private"`, tid("channel-members")))
	w.b.click(mainComposer)
	w.b.do("type in the channel", chromedp.KeyEvent("for the launch crew only\r"))
	w.waitStored(t, "for the launch crew only")
	w.b.screenshot("private-channel")

	if !w.listed(t, "bob", id) {
		t.Errorf("hive channel list --all --profile bob does not show %s", id)
	}
	if out := w.cli.ok("read", id, "--profile", "bob"); !strings.Contains(out, "owner: for the launch crew only") {
		t.Errorf("hive read %s --profile bob:\n%s", id, out)
	}
	if w.listed(t, "carol", id) {
		t.Errorf("hive channel list --all --profile carol shows the private channel %s", id)
	}
	if _, errOut, code := w.cli.run("read", id, "--profile", "carol"); code == 0 || !strings.Contains(errOut, `no channel "`+id+`" that you can see`) {
		t.Errorf("hive read %s --profile carol: exit %d, want no channel ... that you can see:\n%s", id, code, errOut)
	}

	w.b.click(tid("channel-new"))
	w.b.typeInto(tid("channel-new-name"), "launch plans")
	w.b.click(tid("channel-new-submit"))
	w.waitRefusal(t, "duplicate: channel launch-plans already exists")
	w.b.click(tid("member-add"))
	w.b.do("an unknown name", chromedp.KeyEvent("nobody\r"))
	w.waitRefusal(t, `no member is named "nobody"`)

	w.b.do("phone width", chromedp.EmulateViewport(390, 760))
	w.b.screenshot("private-channel-phone")
	w.b.click(".topbar .menu")
	w.b.waitVisible(tid("channel-new"))
	w.b.screenshot("sidebar-phone")
	w.b.noConsoleErrors()
}

// bob creates an open channel with the CLI; the owner's page lists it under
// "Other channels" live, joins it and writes there (bob's CLI reads it),
// then leaves it: the channel moves back to the ones to join and the hub's
// roster has no owner in it. Leaving a channel the owner is the last owner
// of shows the hub's refusal word for word.
func TestWebJoinsAndLeavesChannel(t *testing.T) {
	w := startWebTeam(t)
	w.signInAsOwner(t)
	w.openChannel(t, "room")
	w.cli.ok("channel", "create", "town square", "--profile", "bob")
	join := `[data-testid="channel-join"][data-channel="town-square"]`
	w.b.waitVisible(join)
	w.b.click(join)
	w.b.waitVisible(channelItem("town-square") + `[aria-current="true"]`)
	w.b.waitUntil("the head says 2 members", fmt.Sprintf(`document.querySelector(%q).textContent === "2 members"`, tid("channel-members")))
	w.b.click(mainComposer)
	w.b.do("type in town", chromedp.KeyEvent("hello town\r"))
	w.waitStored(t, "hello town")
	if out := w.cli.ok("read", "town-square", "--profile", "bob"); !strings.Contains(out, "owner: hello town") {
		t.Errorf("hive read town-square --profile bob:\n%s", out)
	}
	w.b.screenshot("joined")

	w.b.click(tid("channel-leave"))
	w.b.waitVisible(tid("channel-leave-confirm"))
	w.b.screenshot("leave-asked")
	w.b.click(tid("channel-leave-confirm"))
	w.b.waitVisible(join)
	if n := w.b.count(channelItem("town-square")); n != 0 {
		t.Errorf("town-square is still in the owner's channels after leaving (%d items)", n)
	}
	if info := w.cli.ok("channel", "info", "town-square", "--profile", "bob", "--json"); strings.Contains(info, w.owner) {
		t.Errorf("the owner left town-square, but hive channel info still lists them:\n%s", info)
	}

	w.openChannel(t, "room")
	w.b.click(tid("channel-leave"))
	w.b.click(tid("channel-leave-confirm"))
	w.waitRefusal(t, fmt.Sprintf("invalid: %s is the last owner of room; make someone else owner first", w.owner))
	if n := w.b.count(channelItem("room")); n != 1 {
		t.Errorf("room left the sidebar after a refused leave (%d items)", n)
	}
	w.b.noConsoleErrors()
}
