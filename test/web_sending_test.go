package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// pendingFind finds the main timeline's pending message (data-pending sending or failed) whose text contains sub.
func pendingFind(state, sub string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%q)].find(m => m.querySelector('[data-testid="message-text"]').textContent.includes(%q))`,
		tid("timeline")+fmt.Sprintf(` [data-testid="message"][data-pending=%q]`, state), sub)
}

// A message written while the hub is down (kill -9) shows at once in the
// author's timeline as "sending…"; when the hub is back the page publishes
// it, the row turns into the stored message (the same event id, shown
// once), and bob's `hive read` has it once.
func TestWebSendingWhileOffline(t *testing.T) {
	w := startWebTeam(t)
	w.signInAsOwner(t)
	w.openChannel(t, "room")
	w.h.kill9()
	w.b.waitState("reconnecting", "connecting")
	w.b.click(mainComposer)
	w.b.do("type while offline", chromedp.KeyEvent("written while the hub was down\r"))
	find := pendingFind("sending", "written while the hub was down")
	w.b.waitUntil("the sending row", "!!"+find)
	id := evalAs[string](w.b, find+".dataset.eventId")
	if got := evalAs[string](w.b, find+`.querySelector('[data-testid="message-status"]').textContent`); got != "sending…" {
		t.Errorf("the pending row says %q, want sending…", got)
	}
	w.b.screenshot("sending")
	w.b.do("phone width", chromedp.EmulateViewport(390, 760))
	w.b.screenshot("sending-phone")
	w.b.do("desktop width", chromedp.EmulateViewport(1280, 900))

	w.h = startWebHubAt(t, w.h.Data, w.h.addr)
	w.b.waitState("connected")
	w.b.waitUntil("the row stored", fmt.Sprintf(`!!document.querySelector(%q) && !document.querySelector(%q)`,
		tid("timeline")+" "+messageSel(id)+":not([data-pending])", tid("timeline")+" [data-pending]"))
	if n := w.b.count(tid("timeline") + " " + messageSel(id)); n != 1 {
		t.Errorf("message %s shows %d times, want once", id, n)
	}
	var seen int
	for _, r := range rows(t, w.cli.ok("read", "room", "--profile", "bob", "--json")) {
		if r.Text == "written while the hub was down" {
			seen++
			if r.ID != id {
				t.Errorf("bob reads it as %s, the page showed %s", r.ID, id)
			}
		}
	}
	if seen != 1 {
		t.Errorf("bob's hive read shows the message %d times, want once", seen)
	}
	w.b.screenshot("delivered")
	w.b.noConsoleErrors("WebSocket connection to")
}

// A message the hub refuses (content over its 128 KiB limit) stays in the
// timeline as "not sent: <the hub's reason>" with Retry (refused again, the
// same reason) and Discard, which gives the text back to the composer.
func TestWebNotSentShowsReason(t *testing.T) {
	w := startWebTeam(t)
	w.signInAsOwner(t)
	w.openChannel(t, "room")
	long := "too long " + strings.Repeat("word ", 28000)
	w.b.setValue(mainComposer, long)
	w.b.click(mainComposer)
	w.b.do("send", chromedp.KeyEvent("\r"))
	find := pendingFind("failed", "too long")
	w.b.waitUntil("the not-sent row", "!!"+find)
	const want = "not sent: invalid: content longer than 131072 bytes"
	reason := find + `.querySelector('[data-testid="message-status"] .reason').textContent`
	if got := evalAs[string](w.b, reason); got != want {
		t.Fatalf("the row says %q, want %q", got, want)
	}
	w.b.screenshot("not-sent")
	w.b.do("phone width", chromedp.EmulateViewport(390, 760))
	w.b.screenshot("not-sent-phone")
	w.b.do("desktop width", chromedp.EmulateViewport(1280, 900))
	w.b.click(tid("message-retry"))
	// the row turns "sending" and then "not sent" again: wait for the second
	// attempt's refusal (the page may render both changes at once, and the
	// first refusal reads the same)
	w.b.waitUntil("refused again with the same reason", fmt.Sprintf(`(%s)?.dataset.attempt === "2" && (%s).querySelector('[data-testid="message-status"] .reason')?.textContent === %q`, find, find, want))
	w.b.click(tid("message-discard"))
	w.b.waitUntil("the row gone and the text back", fmt.Sprintf(`!document.querySelector(%q) && document.querySelector(%q).value.length === %d`,
		tid("timeline")+" [data-pending]", mainComposer, len(strings.TrimSpace(long))))
	w.b.noConsoleErrors()
}
