package test

import "testing"

// A real Chromium opens the hub's URL over TLS (trusting its pin): the page
// loads with no console error, no CSP violation and no uncaught exception,
// shows the sign-in screen (signed-out), and once a member's key is
// imported its connection state reaches the hub. Its CSP is in force: a
// script added inline at run time does not run, and Chromium reports the
// refusal.
func TestWebPageLoads(t *testing.T) {
	m := newWebMember(t)
	h := m.h
	b := newBrowser(t, h.Pin)
	b.open(h.URL)
	if state := b.waitState("signed-out"); state != "signed-out" {
		t.Fatalf("before sign-in: connection-state %s", state)
	}
	b.importKey(m.nsec, "")
	b.screenshot("loaded")
	b.noConsoleErrors()

	b.do("inject an inline script", evalDo(`(() => {
		const s = document.createElement("script");
		s.textContent = "window.__inlineRan = true";
		document.body.append(s);
	})()`))
	if ran := evalAs[bool](b, `window.__inlineRan === true`); ran {
		t.Fatal("an inline script ran: the page's CSP does not block inline script")
	}
	b.waitConsole("Content Security Policy")
}
