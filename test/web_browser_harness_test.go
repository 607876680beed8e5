package test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser harness: a real headless Chromium (Debian's chromium) driven
// by chromedp against a real `hive serve --tls self-signed`, trusted through
// --ignore-certificate-errors-spki-list with the hub's pin.

// browserTimeout bounds one browser's whole life in a test.
const browserTimeout = 3 * time.Minute

// waitTimeout bounds one wait for the page (generous: the machine is loaded).
const waitTimeout = 30 * time.Second

// chromiumPath finds Chromium: $HIVE_CHROMIUM, else chromium or
// chromium-browser on PATH. Without it the test skips, or fails when
// HIVE_REQUIRE_CHROMIUM is set (CI installs it).
func chromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("HIVE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("HIVE_REQUIRE_CHROMIUM") != "" {
		t.Fatal("chromium not found (HIVE_REQUIRE_CHROMIUM is set): apt-get install chromium, or set HIVE_CHROMIUM")
	}
	t.Skip("chromium not found: apt-get install chromium (or set HIVE_CHROMIUM) to run the browser tests")
	return ""
}

// webHub is a `hive serve --tls self-signed` for browser tests: URL is its
// https:// page, WS its wss:// URL, Pin its sha256/ pin.
type webHub struct {
	*hubProc
	Data string
	URL  string
	WS   string
	Pin  string
}

// startWebHub starts a TLS hub in a fresh data directory with extra serve flags.
func startWebHub(t testing.TB, args ...string) *webHub {
	t.Helper()
	data := filepath.Join(t.TempDir(), "hub")
	return startWebHubAt(t, data, freeAddr(t), args...)
}

// startWebHubAt starts (or restarts) a TLS hub on data and addr.
func startWebHubAt(t testing.TB, data, addr string, args ...string) *webHub {
	t.Helper()
	p := startProc(t, data, addr, append([]string{"--tls", "self-signed"}, args...)...)
	pin := pinRe.FindString(p.logs())
	if pin == "" {
		t.Fatalf("no pin in the hub's log:\n%s", p.logs())
	}
	return &webHub{hubProc: p, Data: data, URL: "https://" + addr + "/", WS: "wss://" + addr, Pin: pin}
}

// browser is one headless Chromium with one tab.
type browser struct {
	t         testing.TB
	ctx       context.Context
	artifacts string

	mu       sync.Mutex
	problems []string // console errors, uncaught exceptions, error log entries (CSP violations)
}

// artifactDir is where a test's screenshots go: $HIVE_TEST_ARTIFACTS/<test>,
// else a directory that outlives the test (logged).
func artifactDir(t testing.TB) string {
	t.Helper()
	name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")
	if root := os.Getenv("HIVE_TEST_ARTIFACTS"); root != "" {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir, err := os.MkdirTemp("", "hive-artifacts-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// newBrowser starts Chromium trusting the certificate with pin (sha256/...),
// with a fresh profile and the extra options. It is closed when the test ends.
func newBrowser(t testing.TB, pin string, extra ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("ignore-certificate-errors-spki-list", strings.TrimPrefix(pin, "sha256/")),
		chromedp.WindowSize(1280, 900),
	}
	opts = append(opts, extra...)
	ctx, cancelTime := context.WithTimeout(context.Background(), browserTimeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	b := &browser{t: t, ctx: bctx, artifacts: artifactDir(t)}
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancelTime()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting chromium (%s): %v", exe, err)
	}
	console := chromedp.Console(bctx)
	go b.collect(console)
	t.Logf("browser artifacts (screenshots) in %s", b.artifacts)
	return b
}

// collect keeps the console's errors, exceptions and error log entries
// (CSP violations among them) until the browser's context ends.
func (b *browser) collect(console iter.Seq2[chromedp.ConsoleMessage, error]) {
	for m, err := range console {
		if err != nil {
			return
		}
		if m.Type == chromedp.ConsoleError || m.IsException() {
			b.mu.Lock()
			b.problems = append(b.problems, m.String()+" "+m.URL)
			b.mu.Unlock()
		}
	}
}

// consoleErrors returns what the page reported as errors so far.
func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// noConsoleErrors fails the test if the page reported an error other than
// those containing one of expected (a test that kills the hub expects the
// browser's own "WebSocket connection ... failed").
func (b *browser) noConsoleErrors(expected ...string) {
	b.t.Helper()
	var bad []string
	for _, p := range b.consoleErrors() {
		if !slices.ContainsFunc(expected, func(e string) bool { return strings.Contains(p, e) }) {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		b.t.Fatalf("the page reported %d errors:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// do runs actions, bounded by waitTimeout; on an error it saves a
// screenshot ("failed") and fails the test.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	runIn(b, what, chromedp.Steps(actions...))
}

// runIn runs one action on b's tab within waitTimeout and returns its value.
func runIn[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.fail(what, err)
	}
	return v
}

// fail saves a screenshot ("failed") and fails the test with what went
// wrong and the page's errors.
func (b *browser) fail(what string, err error) {
	b.t.Helper()
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("not within %s", waitTimeout)
	}
	b.screenshot("failed")
	b.t.Fatalf("%s: %v\nthe page's errors: %s", what, err, strings.Join(b.consoleErrors(), "\n"))
}

// evalAs evaluates a JS expression in the page and decodes its value.
func evalAs[T any](b *browser, js string) T {
	b.t.Helper()
	return runIn(b, "eval "+js, chromedp.Evaluate[T](js))
}

// tid is the CSS selector of a data-testid (spec/web.md).
func tid(id string) string { return `[data-testid="` + id + `"]` }

// open navigates to url and waits for the page's body.
func (b *browser) open(url string) {
	b.t.Helper()
	b.do("open "+url, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body")))
}

// waitVisible waits until the element of a CSS selector is visible.
func (b *browser) waitVisible(sel string) {
	b.t.Helper()
	b.do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// click clicks the first visible element of a CSS selector with the mouse.
// A page that re-renders may replace the node between the query and the
// click; the click is then tried again on the new node.
func (b *browser) click(sel string) {
	b.t.Helper()
	b.retry("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// retry runs a, again while it fails on a node the page replaced, within
// waitTimeout.
func (b *browser) retry(what string, a chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, time.Until(deadline))
		_, err := chromedp.Run(ctx, a)
		cancel()
		if err == nil {
			return
		}
		if time.Now().Before(deadline) && replacedNode(err) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		b.fail(what, err)
		return
	}
}

// replacedNode says whether err is DevTools' answer about a node the page
// removed after the query found it.
func replacedNode(err error) bool {
	for _, m := range []string{"Could not find node", "Node is detached", "No node with given id"} {
		if strings.Contains(err.Error(), m) {
			return true
		}
	}
	return false
}

// typeInto types text into the element of sel, key by key as a person
// would ("\r" is Enter).
func (b *browser) typeInto(sel, text string) {
	b.t.Helper()
	b.retry("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// setValue sets an input's value (for long pasted text such as a pairing URI)
// and fires its input event.
func (b *browser) setValue(sel, value string) {
	b.t.Helper()
	b.do("set "+sel, chromedp.SetValue(chromedp.CSS(sel), value))
	b.do("input event on "+sel, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`document.querySelector(%q).dispatchEvent(new Event("input", {bubbles: true}))`, sel)))
}

// text returns the visible text of the first element of sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return runIn(b, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

// count returns how many elements match sel now.
func (b *browser) count(sel string) int {
	b.t.Helper()
	return evalAs[int](b, fmt.Sprintf("document.querySelectorAll(%q).length", sel))
}

// waitUntil polls a JS boolean expression until it is true.
func (b *browser) waitUntil(what, js string) {
	b.t.Helper()
	runIn(b, what, chromedp.Poll[chromedp.Void](js,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(waitTimeout)))
}

// within reports whether a JS boolean expression becomes true within d.
func (b *browser) within(d time.Duration, js string) bool {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(d)))
	return err == nil
}

// waitState waits until connection-state's data-state is one of states and
// returns it.
func (b *browser) waitState(states ...string) string {
	b.t.Helper()
	quoted := make([]string, len(states))
	for i, s := range states {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && [%s].includes(e.dataset.state) })()`,
		tid("connection-state"), strings.Join(quoted, ","))
	b.waitUntil("connection-state in "+strings.Join(states, "|"), js)
	return evalAs[string](b, fmt.Sprintf(`document.querySelector(%q).dataset.state`, tid("connection-state")))
}

// screenshot saves a full-page PNG as NAME.png in the artifact directory
// and returns its path ("" when it could not).
func (b *browser) screenshot(name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	path := filepath.Join(b.artifacts, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return ""
	}
	b.t.Logf("screenshot: %s", path)
	return path
}

// evalDo is an action that evaluates js and drops its value.
func evalDo(js string) chromedp.Action[chromedp.Void] { return chromedp.Evaluate[chromedp.Void](js) }

// waitConsole waits until the page has reported an error containing sub.
func (b *browser) waitConsole(sub string) {
	b.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		for _, p := range b.consoleErrors() {
			if strings.Contains(p, sub) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("the page reported no error with %q within %s; it reported: %q", sub, waitTimeout, b.consoleErrors())
}
