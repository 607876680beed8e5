package test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The chat page used with the keyboard alone, and on a phone-sized screen
// (spec/web.md). After signing in the composer has the focus; Enter sends,
// Alt-Down opens the next channel, Up in the empty composer edits the last
// own message and Enter saves it.
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
	b.waitUntil("the message shown in ops", `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="message-text"]')].some(e => e.textContent === "in ops")`)

	keys("Up edits", kb.ArrowUp)
	b.waitUntil("the editor open", `document.activeElement?.dataset.testid === "edit-input"`)
	keys("fix and save", " fixed\r")
	b.waitUntil("the edit shown", `[...document.querySelectorAll('[data-testid="message-text"]')].some(e => e.textContent === "in ops fixed(edited)")`)
	if out := m.c.ok("read", "ops", "--profile", "admin"); !strings.Contains(out, "admin: in ops fixed (edited)") {
		t.Fatalf("hive read ops:\n%s", out)
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
