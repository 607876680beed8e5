// Package test holds hive's end-to-end tests: the real hub on 127.0.0.1, real
// websockets, a real SQLite file, and for crash tests the real binary.
package test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ainb/hive/client"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

type key struct{ sk, pk string }

func newKey(t testing.TB) key {
	sk := nostr.GeneratePrivateKey()
	pk, _ := nostr.GetPublicKey(sk)
	return key{sk, pk}
}

// npubOf is pk's npub.
func npubOf(pk string) string { n, _ := nip19.EncodePublicKey(pk); return n }

func (k key) sign(t testing.TB, kind int, content string, tags ...nostr.Tag) *nostr.Event {
	t.Helper()
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Now(), Content: content, Tags: nostr.Tags(tags)}
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	if err := ev.Sign(k.sk); err != nil {
		t.Fatal(err)
	}
	return ev
}

// signAt is sign with an explicit created_at: an event meant for a later
// second than another names that second instead of waiting for it.
func (k key) signAt(t testing.TB, at nostr.Timestamp, kind int, content string, tags ...nostr.Tag) *nostr.Event {
	t.Helper()
	ev := k.sign(t, kind, content, tags...)
	ev.CreatedAt = at
	if err := ev.Sign(k.sk); err != nil {
		t.Fatal(err)
	}
	return ev
}

type testHub struct {
	URL   string
	Relay *relay.Relay
	Store *sqlite.Store
	Path  string
}

// startOpenHub runs a relay with no access policy on 127.0.0.1, over a real SQLite file.
func startOpenHub(t testing.TB, cfg relay.Config) *testHub {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hive.db")
	st, err := sqlite.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "ws://" + ln.Addr().String()
	cfg.PublicURLs = append(cfg.PublicURLs, url)
	rl := relay.New(cfg, st, nil)
	srv := &http.Server{Handler: rl}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		rl.Close()
		st.Close()
	})
	return &testHub{URL: url, Relay: rl, Store: st, Path: path}
}

// raw is a bare websocket client for what go-nostr's client would not send.
type raw struct {
	t         testing.TB
	ws        *websocket.Conn
	challenge string // the hub's NIP-42 challenge, once seen
}

func dialRaw(t testing.TB, url string) *raw {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &raw{t: t, ws: ws}
}

func (r *raw) send(v any) {
	r.t.Helper()
	var b []byte
	switch x := v.(type) {
	case string:
		b = []byte(x)
	default:
		b, _ = json.Marshal(x)
	}
	if err := r.ws.WriteMessage(websocket.TextMessage, b); err != nil {
		r.t.Fatal(err)
	}
}

// next reads the next message as a JSON array, failing after d.
func (r *raw) next(d time.Duration) []json.RawMessage {
	r.t.Helper()
	r.ws.SetReadDeadline(time.Now().Add(d))
	_, b, err := r.ws.ReadMessage()
	if err != nil {
		r.t.Fatalf("reading: %v", err)
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(b, &arr); err != nil {
		r.t.Fatalf("hub sent non-array %s", b)
	}
	return arr
}

// expect reads until a message with label arrives and returns it.
func (r *raw) expect(label string) []json.RawMessage {
	r.t.Helper()
	for i := 0; i < 1000; i++ {
		m := r.next(5 * time.Second)
		if str(m[0]) == "AUTH" {
			r.challenge = str(m[1])
		}
		if str(m[0]) == label {
			return m
		}
	}
	r.t.Fatalf("no %s", label)
	return nil
}

func str(m json.RawMessage) string {
	var s string
	json.Unmarshal(m, &s)
	return s
}

// auth answers the hub's NIP-42 challenge as k and returns the OK reason.
func (r *raw) auth(k key, url string) (bool, string) {
	r.t.Helper()
	ch := r.waitChallenge()
	ev := client.AuthEvent(url, ch, nil)
	ev.CreatedAt = nostr.Now()
	ev.Sign(k.sk)
	r.send([]any{"AUTH", ev})
	ok := r.expect("OK")
	return string(ok[2]) == "true", str(ok[3])
}

// publish sends ev and waits for its OK.
func (r *raw) publish(ev *nostr.Event) (bool, string) {
	r.t.Helper()
	r.send([]any{"EVENT", ev})
	for {
		m := r.expect("OK")
		if str(m[1]) == ev.ID {
			return string(m[2]) == "true", str(m[3])
		}
	}
}

// req sends a REQ and collects events until EOSE or CLOSED.
func (r *raw) req(id string, filters ...nostr.Filter) (evs []*nostr.Event, closed string) {
	r.t.Helper()
	msg := []any{"REQ", id}
	for _, f := range filters {
		msg = append(msg, f)
	}
	r.send(msg)
	for {
		m := r.next(5 * time.Second)
		switch str(m[0]) {
		case "EVENT":
			if str(m[1]) != id {
				continue
			}
			ev := &nostr.Event{}
			if err := json.Unmarshal(m[2], ev); err != nil {
				r.t.Fatal(err)
			}
			evs = append(evs, ev)
		case "EOSE":
			if str(m[1]) == id {
				return evs, ""
			}
		case "CLOSED":
			if str(m[1]) == id {
				return evs, str(m[2])
			}
		}
	}
}

func hasPrefix(s string, p string) bool { return strings.HasPrefix(s, p) }

// reasonIs reports whether the hub's message got is the refusal want pins:
// want is the message from its start, with "…" where it names a key, an id
// or a time. A want of a prefix alone ("invalid:") fails the test: a
// refusal by another rule would pass it.
func reasonIs(t testing.TB, got, want string) bool {
	t.Helper()
	if regexp.MustCompile(`^[a-z-]+:$`).MatchString(want) {
		t.Errorf("the refusal wanted is only the prefix %q: pin its reason (the hub said %q)", want, got)
	}
	parts := strings.Split(want, "…")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*")).MatchString(got)
}

func connect(t testing.TB, url string) *nostr.Relay {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := nostr.RelayConnect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var _ = fmt.Sprint

func (r *raw) waitChallenge() string {
	if r.challenge == "" {
		r.expect("AUTH")
	}
	return r.challenge
}
