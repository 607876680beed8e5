package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The chat page used with the keyboard alone, and on a phone-sized screen
// (spec/web.md). After signing in the composer has the focus; Enter sends,
// Alt-Down opens the next channel, Up in the empty composer edits the last
// own message and Enter saves it, Tab from the message reaches Delete.
func TestWebKeyboardOnly(t *testing.T) {
	m := newWebMember(t, "general", "ops")
	b := newBrowser(t, m.h.Pin)
	b.open(m.h.URL)
	b.importKey(m.nsec, "")
	b.waitUntil("the composer focused", `document.activeElement?.dataset.testid === "composer"`)
	b.waitVisible(tid("channel-item") + `[data-channel="general"][aria-current="true"]`)

	keys := func(what, k string, opts ...chromedp.KeyOption) { b.do(what, chromedp.KeyEvent(k, opts...)) }
	keys("type in general", "from the keyboard\r")
	b.waitUntil("the message shown", `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="message-text"]')].some(e => e.textContent === "from the keyboard")`)
	if out := m.c.ok("read", "general", "--profile", "admin"); !strings.Contains(out, "admin: from the keyboard") {
		t.Fatalf("hive read general:\n%s", out)
	}

	keys("Alt-Down", kb.ArrowDown, chromedp.KeyModifiers(chromedp.ModifierAlt))
	b.waitVisible(tid("channel-item") + `[data-channel="ops"][aria-current="true"]`)
	b.waitUntil("the composer focused in ops", `document.activeElement?.dataset.testid === "composer"`)
	keys("type in ops", "in ops\r")
	// stored, not still sending (Up edits a stored message)
	b.waitUntil("the message shown in ops", `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="message"]:not([data-pending]) [data-testid="message-text"]')].some(e => e.textContent === "in ops")`)

	keys("Up edits", kb.ArrowUp)
	b.waitUntil("the editor open", `document.activeElement?.dataset.testid === "edit-input"`)
	keys("fix and save", " fixed\r")
	b.waitUntil("the edit shown", `[...document.querySelectorAll('[data-testid="message-text"]')].some(e => e.textContent === "in ops fixed(edited)")`)
	if out := m.c.ok("read", "ops", "--profile", "admin"); !strings.Contains(out, "admin: in ops fixed (edited)") {
		t.Fatalf("hive read ops:\n%s", out)
	}

	// Delete it: Tab from the focused message reaches its actions.
	b.waitUntil("the edited message focused", `document.activeElement?.dataset.testid === "message"`)
	for range 4 {
		if evalAs[string](b, `document.activeElement?.dataset.testid || ""`) == "message-delete" {
			break
		}
		keys("Tab to the actions", kb.Tab)
	}
	keys("Enter on Delete", "\r")
	b.waitUntil("the message gone", `![...document.querySelectorAll('[data-testid="message-text"]')].some(e => e.textContent.startsWith("in ops"))`)
	if out := m.c.ok("read", "ops", "--profile", "admin"); strings.Contains(out, "in ops") {
		t.Fatalf("hive read ops after the delete:\n%s", out)
	}
	b.noConsoleErrors()
}

func TestWebPhoneLayout(t *testing.T) {
	m := newWebMember(t, "general", "ops")
	m.c.ok("send", "general", "hello from a phone test", "--profile", "admin")
	b := newBrowser(t, m.h.Pin)
	b.do("a phone-sized screen", chromedp.EmulateViewport(390, 760, chromedp.EmulateMobile))
	b.open(m.h.URL)
	b.importKey(m.nsec, "")
	b.waitVisible(tid("message"))
	if d := evalAs[string](b, `getComputedStyle(document.querySelector(".sidebar")).display`); d != "none" {
		t.Fatalf("on a phone the sidebar shows at first (display %s)", d)
	}
	if w := evalAs[float64](b, `document.querySelector('[data-testid="timeline"]').getBoundingClientRect().width`); w < 380 {
		t.Fatalf("the timeline is %v px wide on a 390 px screen", w)
	}
	b.screenshot("phone-channel")
	b.click(".menu")
	b.waitVisible(tid("channel-item") + `[data-channel="ops"]`)
	b.screenshot("phone-channels")
	b.click(tid("channel-item") + `[data-channel="ops"]`)
	b.waitUntil("the sidebar closed and ops open", `getComputedStyle(document.querySelector(".sidebar")).display === "none" && document.querySelector('.topbar .title').textContent === "# ops"`)
	b.noConsoleErrors()
}

// Paging back (spec/chat.md, "Paging"): a channel of 250 messages opens on
// its newest page; scrolling to the top loads older pages, each row once,
// and the row that was at the top stays where it was on the screen, until
// the channel's first message and no "older" button.
func TestWebPagesBack(t *testing.T) {
	w := startWebTeam(t)
	c := w.memberClient(t, "bob")
	w.cli.ok("channel", "create", "big", "--profile", "owner")
	w.cli.ok("channel", "join", "big", "--profile", "bob")
	newest := seed(t, c, "big", 250)
	w.signInAsOwner(t)
	w.openChannel(t, "big")
	w.b.waitVisible(tid("timeline") + " " + messageSel(newest))
	count := func() int { return w.b.count(tid("timeline") + " " + tid("message")) }
	first := count()
	if first >= 250 || first < 100 {
		t.Fatalf("the first page shows %d rows of 250", first)
	}
	for page := 1; w.b.count(tid("load-older")) > 0; page++ {
		if page > 5 {
			t.Fatalf("still an older button after %d pages (%d rows)", page, count())
		}
		before := count()
		// the top row's distance from the timeline's top, before and after the older page lands
		top := evalAs[string](w.b, `document.querySelector('[data-testid="timeline"] [data-testid="message"]').dataset.eventId`)
		off := `(() => { const tl = document.querySelector('[data-testid="timeline"]'); const m = tl.querySelector('[data-event-id="` + top + `"]'); return m.getBoundingClientRect().top - tl.getBoundingClientRect().top; })()`
		w.b.do("scroll to the top", evalDo(`document.querySelector('[data-testid="timeline"]').scrollTop = 0`))
		was := evalAs[float64](w.b, off)
		w.b.waitUntil("an older page", fmt.Sprintf(`document.querySelectorAll('[data-testid="timeline"] [data-testid="message"]').length > %d || !document.querySelector('[data-testid="load-older"]')`, before))
		if now := evalAs[float64](w.b, off); count() > before && (now-was > 2 || was-now > 2) {
			t.Fatalf("page %d: the row that was on top moved from %.0f to %.0f px", page, was, now)
		}
	}
	ids := evalAs[[]string](w.b, `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="message"]')].map(m => m.dataset.eventId)`)
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("row %s shown twice", id)
		}
		seen[id] = true
	}
	texts := evalAs[[]string](w.b, `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="message-text"]')].map(m => m.textContent)`)
	var seeded []string
	for _, s := range texts {
		if strings.HasPrefix(s, "message ") && strings.HasSuffix(s, " of the seed") {
			seeded = append(seeded, s)
		}
	}
	if len(seeded) != 250 {
		t.Fatalf("after paging back: %d seeded rows of 250", len(seeded))
	}
	for i, s := range seeded {
		if s != fmt.Sprintf("message %d of the seed", i) {
			t.Fatalf("row %d of the seed reads %q: out of order", i, s)
		}
	}
	w.b.noConsoleErrors()
}

// A direct message started from the sidebar by a member's name: the page
// creates the DM with the id the CLI uses for the pair of keys, opens it,
// and what it sends there the other member reads with hive read.
func TestWebStartsDM(t *testing.T) {
	w := startWebTeam(t)
	w.signInAsOwner(t)
	w.b.waitVisible(`[data-testid="channel-item"][aria-current="true"]`)
	w.b.click(tid("dm-new"))
	w.b.waitUntil("the DM input focused", `document.activeElement?.dataset.testid === "dm-new-input"`)
	w.b.do("type bob", chromedp.KeyEvent("bob\r"))
	id := client.DMChannelID(w.owner, w.bob)
	w.b.waitVisible(channelItem(id) + `[aria-current="true"]`)
	w.b.waitUntil("the composer focused in the DM", `document.activeElement?.dataset.testid === "composer"`)
	w.b.do("type in the DM", chromedp.KeyEvent("just between us\r"))
	w.b.waitUntil("the message shown", `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="message-text"]')].some(e => e.textContent === "just between us")`)
	if out := w.cli.ok("read", id, "--profile", "bob"); !strings.Contains(out, "owner: just between us") {
		t.Fatalf("hive read %s --profile bob:\n%s", id, out)
	}
	w.b.click(tid("dm-new"))
	w.b.do("an unknown name", chromedp.KeyEvent("nobody\r"))
	w.b.waitUntil("the refusal line", `document.querySelector('[data-testid="refusal"]').textContent === 'no member is named "nobody"'`)
	w.b.noConsoleErrors()
}

// The owner's view of an agent's turn from its observer frames: the sidebar
// lists the agent, its pane shows the turn's prompt and the permission
// request waiting (with Cancel for the running turn); once Allow is
// clicked the pane shows the answer and the turn's end.
func TestWebAgentTranscript(t *testing.T) {
	w := startWebTeam(t)
	agent := w.startWebAgent(t)
	w.signInAsOwner(t)
	w.openChannel(t, "room")
	w.cli.ok("send", "room", "@helper [[permission]] show me the transcript", "--mention", "helper", "--profile", "owner")
	item := tid("agent-item") + fmt.Sprintf(`[data-agent=%q]`, agent)
	w.b.waitVisible(item)
	w.b.click(item)
	turn := tid("agent-transcript") + " " + tid("agent-turn")
	w.b.waitUntil("the turn's prompt in the pane", fmt.Sprintf(`[...document.querySelectorAll(%q)].some(t => t.textContent.includes("show me the transcript") && t.textContent.includes("waiting for your answer"))`, turn))
	w.b.waitVisible(tid("agent-cancel"))
	w.b.screenshot("transcript")
	w.b.click(tid("permission-request") + ` [data-testid="permission-option"][data-option-id="allow"]`)
	w.b.waitUntil("the answer and the end of the turn", fmt.Sprintf(`[...document.querySelectorAll(%q)].some(t => /: Allow/.test(t.textContent) && t.textContent.includes("— done"))`, turn))
	w.b.waitUntil("no Cancel once the turn ended", `document.querySelector('[data-testid="agent-cancel"]').hidden`)
	w.b.noConsoleErrors()
}
