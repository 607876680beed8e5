package test

import "testing"

// A real Chromium opens the hub's URL over TLS (trusting its pin): the page
// loads with no console error, no CSP violation and no uncaught exception,
// and its connection state reaches the hub. Its CSP is in force: a script
// added inline at run time does not run, and Chromium reports the refusal.
func TestWebPageLoads(t *testing.T) {
	h := startWebHub(t)
	b := newBrowser(t, h.Pin)
	b.open(h.URL)
	state := b.waitState("connected", "authenticating")
	t.Logf("connection-state: %s", state)
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
