package test

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// The browser's own sign-in screens (spec/web.md): an imported key stays in
// the browser's IndexedDB across reloads until "sign out and forget this
// key" deletes it; a key kept under a passphrase is sealed (the stored
// record never holds it in the clear) and asks for the passphrase, refusing
// a wrong one.

// webMember is a hub with the admin's profile in a CLI home and a channel,
// and the admin's nsec for the browser to import.
type webMember struct {
	h    *webHub
	c    *cli
	nsec string
}

func newWebMember(t *testing.T, channels ...string) webMember {
	t.Helper()
	h := startWebHub(t)
	c := newCLI(t)
	keyFile := filepath.Join(h.Data, "admin.key")
	c.ok("profile", "add", "admin", "--hub", h.WS, "--pin", h.Pin, "--key", keyFile)
	c.ok("profile", "name", "admin", "--profile", "admin")
	for _, ch := range channels {
		c.ok("channel", "create", ch, "--profile", "admin")
	}
	raw, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return webMember{h: h, c: c, nsec: strings.TrimSpace(string(raw))}
}

// importKey signs the browser in with nsec (and a passphrase for this
// browser when pass is set) and waits until it is connected.
func (b *browser) importKey(nsec, pass string) {
	b.t.Helper()
	b.waitVisible(tid("key-import"))
	b.setValue(tid("key-import"), nsec)
	if pass != "" {
		b.setValue(tid("store-passphrase"), pass)
	}
	b.click(tid("key-import-submit"))
	b.waitState("connected")
}

// awaitAs evaluates a JS expression that yields a promise and decodes what it resolves to.
func awaitAs[T any](b *browser, js string) T {
	b.t.Helper()
	return runIn(b, "eval "+js, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

func TestWebSignOutForgetsTheKey(t *testing.T) {
	m := newWebMember(t, "general")
	b := newBrowser(t, m.h.Pin)
	b.open(m.h.URL)
	if st := b.waitState("signed-out"); st != "signed-out" {
		t.Fatalf("before sign-in: state %q", st)
	}
	b.importKey(m.nsec, "")
	b.waitVisible(tid("channel-item") + `[data-channel="general"]`)

	b.open(m.h.URL) // the key is kept: a reload signs in by itself
	b.waitState("connected")
	b.waitVisible(tid("channel-item") + `[data-channel="general"]`)
	if n := b.count(tid("key-import")); n != 0 {
		t.Fatalf("after a reload the sign-in screen shows (%d key-import fields)", n)
	}

	b.click(tid("sign-out"))
	b.waitVisible(tid("key-import"))
	if got := b.text(".signin .err"); got != "Signed out; this browser no longer keeps the key." {
		t.Fatalf("sign-out message: %q", got)
	}
	if dbs := awaitAs[[]string](b, `indexedDB.databases().then(ds => ds.map(d => d.name))`); len(dbs) != 0 {
		t.Fatalf("databases left after sign-out: %v", dbs)
	}
	b.open(m.h.URL)
	b.waitState("signed-out")
	b.waitVisible(tid("key-import"))
	b.noConsoleErrors()
}

func TestWebPassphraseLocksTheKey(t *testing.T) {
	m := newWebMember(t, "general")
	b := newBrowser(t, m.h.Pin)
	b.open(m.h.URL)
	b.importKey(m.nsec, "correct horse battery")

	// What IndexedDB holds: the public key and a sealed secret, no key in the clear.
	record := awaitAs[string](b, `new Promise((ok, bad) => {
		const o = indexedDB.open("hive-web");
		o.onerror = () => bad(o.error);
		o.onsuccess = () => {
			const g = o.result.transaction("identity").objectStore("identity").get("me");
			g.onsuccess = () => { o.result.close(); ok(JSON.stringify(g.result)); };
		};
	})`)
	_, sk, err := nip19.Decode(m.nsec)
	if err != nil {
		t.Fatal(err)
	}
	skHex := sk.(string)
	raw, _ := hex.DecodeString(skHex)
	if !strings.Contains(record, `"kdf":"PBKDF2-SHA256"`) || strings.Contains(record, skHex) || strings.Contains(record, "nsec1") ||
		strings.Contains(record, base64.StdEncoding.EncodeToString(raw)) {
		t.Fatalf("stored record: %s", record)
	}

	b.open(m.h.URL)
	b.waitVisible(tid("unlock-passphrase"))
	if st := b.waitState("signed-out"); st != "signed-out" {
		t.Fatalf("locked key: state %q", st)
	}
	b.setValue(tid("unlock-passphrase"), "battery horse correct")
	b.click(tid("unlock-submit"))
	b.waitUntil("the wrong passphrase refused", `document.querySelector(".signin .status-line").textContent === "wrong passphrase"`)
	if st := b.waitState("signed-out"); st != "signed-out" {
		t.Fatalf("after a wrong passphrase: state %q", st)
	}
	b.setValue(tid("unlock-passphrase"), "correct horse battery")
	b.click(tid("unlock-submit"))
	b.waitState("connected")
	b.waitVisible(tid("channel-item") + `[data-channel="general"]`)
	b.noConsoleErrors()
}
