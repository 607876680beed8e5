package test

import (
	"fmt"
	"strings"
	"testing"
)

// Messages that try to run script in the page do nothing: a <script>
// element, an <img onerror>, a javascript: link in markdown and bare, an
// inline event handler. They show as text; no element they name is made, no
// link leads to javascript:, every link has rel=noopener, and clicking the
// link runs nothing. The page reports no error (not even a CSP refusal:
// nothing tried to run).
func TestWebMessagesCannotRunScript(t *testing.T) {
	w := startWebTeam(t)
	w.signInAsOwner(t)
	w.openChannel(t, "room")
	// each attack, and a piece of it its message must show as text
	attacks := []string{
		`<script>window.__xss = "script"</script>`,
		`<img src=x onerror="window.__xss = 'img'">`,
		`[click me](javascript:window.__xss='link')`,
		`javascript:window.__xss='bare'`,
		`<a href="javascript:window.__xss='a'" onclick="window.__xss='onclick'">a link</a>`,
		`<svg onload="window.__xss='svg'"></svg> and a fine https://example.com/ link`,
	}
	shown := []string{"<script>", "onerror", "click me", "javascript:", "a link", "a fine"}
	ids := map[string]string{}
	for _, a := range attacks {
		ids[a] = w.send(t, "bob", "room", a)
	}
	for _, a := range attacks {
		w.b.waitVisible(messageSel(ids[a]))
	}
	for i, a := range attacks {
		got := evalAs[string](w.b, fmt.Sprintf(`document.querySelector(%q).textContent`, messageSel(ids[a])))
		if !strings.Contains(got, shown[i]) {
			t.Errorf("message %q shows as %q: want %q in its text", a, got, shown[i])
		}
	}
	scope := tid("timeline")
	if n := w.b.count(scope + " script, " + scope + " img[onerror], " + scope + " svg, " + scope + " [onclick], " + scope + " [onload]"); n != 0 {
		t.Fatalf("the timeline holds %d elements made from the messages' markup", n)
	}
	if n := w.b.count(scope + ` a[href^="javascript:" i]`); n != 0 {
		t.Fatalf("the timeline holds %d javascript: links", n)
	}
	links := evalAs[[]string](w.b, fmt.Sprintf(`[...document.querySelectorAll(%q)].map(a => a.rel + " " + a.href)`, scope+" a[href]"))
	for _, l := range links {
		if !strings.Contains(l, "noopener") {
			t.Errorf("a link in a message lacks rel=noopener: %q", l)
		}
	}
	// click what looks like the link: nothing runs
	w.b.do("click the markdown link's text", evalDo(fmt.Sprintf(
		`[...document.querySelector(%q).querySelectorAll("*")].forEach(e => { if (e.textContent.includes("click me")) e.click() })`,
		messageSel(ids[attacks[2]]))))
	if v := evalAs[any](w.b, `window.__xss ?? null`); v != nil {
		t.Fatalf("a message ran script: window.__xss = %v", v)
	}
	w.b.screenshot("xss")
	w.b.noConsoleErrors()
}
