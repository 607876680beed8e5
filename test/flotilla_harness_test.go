package test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The flotilla harness: flotilla (coracle-social/flotilla, the NIP-29 web
// client) as its users run it, from its static build, served on 127.0.0.1
// by the test and driven in headless Chromium, signed in with a NIP-07
// extension that holds a member's key outside the page.
//
// The build is not part of this repository: HIVE_FLOTILLA names the
// directory of flotilla's static build (the folder with index.html and
// _app/ its adapter-static build writes). Without it the trial skips and
// says so; with HIVE_REQUIRE_FLOTILLA set it fails instead.

// flotillaBuild is the directory of flotilla's static build, or the test
// skips.
func flotillaBuild(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("HIVE_FLOTILLA")
	if dir == "" {
		if os.Getenv("HIVE_REQUIRE_FLOTILLA") != "" {
			t.Fatal("HIVE_FLOTILLA is not set (HIVE_REQUIRE_FLOTILLA is): set it to flotilla's static build directory")
		}
		t.Skip("flotilla's static build is not here: set HIVE_FLOTILLA to its directory (the one with index.html and _app/) to run the flotilla trial (make test-flotilla)")
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Fatalf("HIVE_FLOTILLA=%s is not flotilla's static build: %v", dir, err)
	}
	return dir
}

// serveFlotilla serves the build on 127.0.0.1 as a single-page app (a path
// that is no file gets index.html, flotilla's fallback page) and returns
// its URL.
func serveFlotilla(t testing.TB, dir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	files := http.FileServer(http.Dir(dir))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clean := filepath.Clean("/" + r.URL.Path)
		if fi, err := os.Stat(filepath.Join(dir, clean)); err != nil || fi.IsDir() {
			http.ServeFile(w, r, filepath.Join(dir, "index.html"))
			return
		}
		files.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// newFlotillaBrowser is a browser trusting the hub's pin whose name
// resolution fails for every host: flotilla's default relays, indexers and
// media servers are out of reach, and only 127.0.0.1 answers.
func newFlotillaBrowser(t testing.TB, pin string) *browser {
	t.Helper()
	return newBrowser(t, pin,
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.WindowSize(1400, 1000))
}

// clickText clicks, with the mouse, the first button or link whose text
// contains text.
func (b *browser) clickText(text string) {
	b.t.Helper()
	b.retry("click "+text, chromedp.Click(chromedp.Search(textXPath(text))))
}

// textXPath is the XPath of a button or link whose text contains text.
func textXPath(text string) string {
	return fmt.Sprintf(`//*[self::button or self::a][contains(normalize-space(.), %s)]`, xpathString(text))
}

// xpathString quotes s for XPath 1.0 (no escapes there: a string with both
// quotes is a concat).
func xpathString(s string) string {
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "concat('" + strings.ReplaceAll(s, "'", `', "'", '`) + "')"
}

// waitText waits until the page's text contains sub.
func (b *browser) waitText(sub string) {
	b.t.Helper()
	b.waitUntil("the page shows "+sub, fmt.Sprintf(`document.body.innerText.includes(%q)`, sub))
}

// clickTextUntil clicks the button or link with text until the page shows
// then (a click that lands while the page is still wiring its handlers, or
// on a modal's fading backdrop, does nothing), at most five times.
func (b *browser) clickTextUntil(text, then string) {
	b.t.Helper()
	b.clickTextUntilJS(text, fmt.Sprintf(`document.body.innerText.includes(%q)`, then))
}

// clickTextUntilJS is clickTextUntil with a JS condition.
func (b *browser) clickTextUntilJS(text, js string) {
	b.t.Helper()
	b.clickUntil(text, chromedp.Click(chromedp.Search(textXPath(text))), js)
}

// clickUntil runs click until the JS condition holds, at most five times.
func (b *browser) clickUntil(what string, click chromedp.Action[chromedp.Void], js string) {
	b.t.Helper()
	for range 5 {
		b.retry("click "+what, click)
		if b.within(5*time.Second, js) {
			return
		}
	}
	b.fail("click "+what, fmt.Errorf("still not %s", js))
}
