package test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"

	"github.com/ainb/hive/identity"
)

// nip07Call is one call of the page into the test's NIP-07 extension.
type nip07Call struct {
	Op    string       `json:"op"`
	Event *nostr.Event `json:"event"`
	Peer  string       `json:"peer"`
	Text  string       `json:"text"`
}

// nip07Extension is a browser extension signer as NIP-07 defines it
// (window.nostr: getPublicKey, signEvent, nip44.encrypt/decrypt), backed by
// a key held in the test, outside the page, as an extension holds it. It
// records the kinds it signed.
type nip07Extension struct {
	keys   identity.Keys
	mu     sync.Mutex
	signed []nostr.Event
}

// nip07Script defines window.nostr before the page's scripts run; each
// method calls the test through the exposed window.hiveNip07.
const nip07Script = `window.nostr = {
  getPublicKey: () => window.hiveNip07({op: 'getPublicKey'}),
  signEvent: (event) => window.hiveNip07({op: 'signEvent', event}),
  nip44: {
    encrypt: (peer, text) => window.hiveNip07({op: 'nip44.encrypt', peer, text}),
    decrypt: (peer, text) => window.hiveNip07({op: 'nip44.decrypt', peer, text}),
  },
};`

// install gives b's tab the extension, for this document and every later one.
func (x *nip07Extension) install(b *browser) {
	b.t.Helper()
	b.do("install the NIP-07 extension",
		chromedp.ExposeFunc("hiveNip07", x.call),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: nip07Script})
			return err
		}))
}

func (x *nip07Extension) call(_ context.Context, c nip07Call) (any, error) {
	switch c.Op {
	case "getPublicKey":
		return x.keys.PublicHex, nil
	case "signEvent":
		if c.Event == nil {
			return nil, fmt.Errorf("signEvent: no event")
		}
		ev := nostr.Event{Kind: c.Event.Kind, CreatedAt: c.Event.CreatedAt, Tags: c.Event.Tags, Content: c.Event.Content}
		if err := ev.Sign(x.keys.SecretHex); err != nil {
			return nil, err
		}
		x.mu.Lock()
		x.signed = append(x.signed, ev)
		x.mu.Unlock()
		return ev, nil
	case "nip44.encrypt", "nip44.decrypt":
		ck, err := nip44.GenerateConversationKey(c.Peer, x.keys.SecretHex)
		if err != nil {
			return nil, err
		}
		if c.Op == "nip44.encrypt" {
			return nip44.Encrypt(c.Text, ck)
		}
		return nip44.Decrypt(c.Text, ck)
	}
	return nil, fmt.Errorf("unknown NIP-07 call %q", c.Op)
}

// signedKinds counts what the extension signed, by kind.
func (x *nip07Extension) signedKinds() map[int]int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := map[int]int{}
	for _, ev := range x.signed {
		n[ev.Kind]++
	}
	return n
}

// bob signs in with "Use a browser extension (NIP-07)": the page never
// holds his key; the extension signs the NIP-42 AUTH and the message, which
// the owner's `hive read` shows as bob's with the event id the page shows.
// After a reload the page signs in again through the extension by itself.
func TestWebSignsInWithExtension(t *testing.T) {
	w := startWebTeam(t)
	ext := &nip07Extension{keys: keyOf(t, profileOf(t, w.cli, "bob").Key)}
	ext.install(w.b)
	w.b.open(w.h.URL)
	w.b.click(tid("nip07-start"))
	w.b.waitState("connected")
	w.openChannel(t, "room")
	w.b.click(mainComposer)
	w.b.do("type", chromedp.KeyEvent("signed by my extension\r"))
	id := w.waitStored(t, "signed by my extension")
	w.b.screenshot("extension-signed")

	var found bool
	for _, r := range rows(t, w.cli.ok("read", "room", "--profile", "owner", "--json")) {
		if r.Text == "signed by my extension" {
			found = true
			if r.ID != id || r.Author != w.bob {
				t.Errorf("hive read: id %s author %s, want %s by bob %s", r.ID, r.Author, id, w.bob)
			}
		}
	}
	if !found {
		t.Fatalf("the owner's hive read room has no 'signed by my extension'")
	}
	if k := ext.signedKinds(); k[22242] < 1 || k[9] != 1 {
		t.Errorf("the extension signed %v, want the AUTH (22242) and one message (9)", k)
	}
	if n := evalAs[int](w.b, `document.body.textContent.indexOf("nsec1")`); n >= 0 {
		t.Errorf("the page shows an nsec")
	}

	auths := ext.signedKinds()[22242]
	w.b.do("reload", chromedp.Reload())
	w.b.waitState("connected")
	w.b.waitVisible(channelItem("room"))
	if k := ext.signedKinds(); k[22242] <= auths {
		t.Errorf("after the reload the extension signed no new AUTH (%v)", k)
	}
	if strings.Contains(w.b.text(".sidebar .foot .who"), "owner") {
		t.Errorf("the page is signed in as the owner, not bob")
	}
	w.b.noConsoleErrors()
}
