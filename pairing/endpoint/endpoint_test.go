package endpoint

import (
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/pairing"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

func start(t *testing.T, lim Limits) (*Server, string) {
	t.Helper()
	s := New(lim, nil)
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })
	return s, "ws" + strings.TrimPrefix(hs.URL, "http")
}

type client struct {
	t      *testing.T
	ws     *websocket.Conn
	in     chan []json.RawMessage
	closed chan struct{} // closed when the server ends the connection
}

func dial(t *testing.T, url string) *client {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	c := &client{t, ws, make(chan []json.RawMessage, 64), make(chan struct{})}
	go func() {
		defer close(c.closed)
		for {
			var m []json.RawMessage
			if err := ws.ReadJSON(&m); err != nil {
				return
			}
			c.in <- m
		}
	}()
	return c
}

func (c *client) send(v ...any) {
	c.t.Helper()
	if err := c.ws.WriteJSON(v); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next message, or nil after a quiet 300 ms.
func (c *client) read() []json.RawMessage {
	c.t.Helper()
	select {
	case m := <-c.in:
		return m
	case <-time.After(300 * time.Millisecond):
		return nil
	}
}

// waitClosed reports whether the server closed the connection within d.
func (c *client) waitClosed(d time.Duration) bool {
	select {
	case <-c.closed:
		return true
	case <-time.After(d):
		return false
	}
}

func str(r json.RawMessage) string {
	var s string
	json.Unmarshal(r, &s)
	return s
}

// expect reads a message with the given label and returns it.
func (c *client) expect(label string) []json.RawMessage {
	c.t.Helper()
	m := c.read()
	for m != nil && label != "AUTH" && str(m[0]) == "AUTH" { // an endpoint with Members challenges every connection
		m = c.read()
	}
	if m == nil || str(m[0]) != label {
		c.t.Fatalf("want %s, got %s", label, fmtMsg(m))
	}
	return m
}

func fmtMsg(m []json.RawMessage) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// okMsg publishes ev and returns the OK's message ("" for accepted).
func (c *client) publish(ev any) string {
	c.t.Helper()
	c.send("EVENT", ev)
	m := c.expect("OK")
	var ok bool
	json.Unmarshal(m[2], &ok)
	if ok != (str(m[3]) == "") {
		c.t.Fatalf("OK %s: accepted flag and message disagree", fmtMsg(m))
	}
	return str(m[3])
}

func (c *client) subscribe(id, p string) {
	c.t.Helper()
	c.send("REQ", id, map[string]any{"kinds": []int{pairing.Kind}, "#p": []string{p}})
	c.expect("EOSE")
}

// offers returns a source public key and n valid offers addressed to it.
func offers(t *testing.T, n int) (string, []*nostr.Event) {
	t.Helper()
	src, u, err := pairing.NewSource([]string{"ws://127.0.0.1:1/pair"}, "", pairing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*nostr.Event
	for i := 0; i < n; i++ {
		_, ev, err := pairing.NewTarget(u, "", pairing.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return src.PublicKey(), out
}

func TestDeliversToTheOneSubscriber(t *testing.T) {
	_, url := start(t, Limits{})
	p, evs := offers(t, 1)
	a, b := dial(t, url), dial(t, url)
	a.subscribe("src", p)
	if msg := b.publish(evs[0]); msg != "" {
		t.Fatalf("refused: %s", msg)
	}
	m := a.expect("EVENT")
	var got nostr.Event
	json.Unmarshal(m[2], &got)
	if str(m[1]) != "src" || got.ID != evs[0].ID || got.Sig != evs[0].Sig {
		t.Fatalf("delivered %s", fmtMsg(m))
	}
	if msg := b.publish(evs[0]); !strings.HasPrefix(msg, "duplicate:") {
		t.Fatalf("replay: %q", msg)
	}
	if a.read() != nil {
		t.Fatal("a replayed event was delivered twice")
	}
}

func TestNothingIsStored(t *testing.T) {
	_, url := start(t, Limits{})
	p, evs := offers(t, 1)
	b := dial(t, url)
	if msg := b.publish(evs[0]); !strings.Contains(msg, "no live subscriber") {
		t.Fatalf("without a subscriber: %q", msg)
	}
	a := dial(t, url)
	a.subscribe("late", p)
	if m := a.read(); m != nil {
		t.Fatalf("a late subscriber got %s", fmtMsg(m))
	}
	// The refused id was not remembered: the sender may retry.
	if msg := b.publish(evs[0]); msg != "" {
		t.Fatalf("retry after a subscriber came: %q", msg)
	}
}

func TestOneLiveSubscriberPerP(t *testing.T) {
	_, url := start(t, Limits{})
	p, evs := offers(t, 1)
	a, squatter := dial(t, url), dial(t, url)
	a.subscribe("x", p)
	squatter.send("REQ", "y", map[string]any{"#p": []string{p}})
	if m := squatter.expect("CLOSED"); !strings.HasPrefix(str(m[2]), "duplicate:") {
		t.Fatalf("second subscriber: %s", fmtMsg(m))
	}
	squatter.publish(evs[0])
	if m := a.expect("EVENT"); str(m[1]) != "x" {
		t.Fatal("not delivered to the first subscriber")
	}
	if squatter.read() != nil {
		t.Fatal("the squatter received the event")
	}
	// When the first subscriber leaves, the key is free again: the REQ is
	// taken once the server has seen the close.
	a.ws.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		squatter.send("REQ", "y", map[string]any{"#p": []string{p}})
		m := squatter.read()
		if m != nil && str(m[0]) == "EOSE" {
			break
		}
		if m == nil || str(m[0]) != "CLOSED" || !strings.HasPrefix(str(m[2]), "duplicate:") || time.Now().After(deadline) {
			t.Fatalf("REQ after the first subscriber left: %s", fmtMsg(m))
		}
	}
}

func TestFilterRules(t *testing.T) {
	_, url := start(t, Limits{})
	p, _ := offers(t, 1)
	c := dial(t, url)
	const oneKey = "invalid: #p must hold exactly one 64-character lowercase hex key"
	for _, c2 := range []struct {
		f    any
		want string
	}{
		{map[string]any{"#p": []string{p}, "since": 1}, `invalid: only kinds and #p are allowed in a pairing filter, not "since"`},
		{map[string]any{"kinds": []int{1}, "#p": []string{p}}, "invalid: kinds must be [24134]"},
		{map[string]any{"kinds": []int{pairing.Kind}}, oneKey},
		{map[string]any{"#p": []string{p, p}}, oneKey},
		{map[string]any{"#p": []string{strings.ToUpper(p)}}, oneKey},
	} {
		c.send("REQ", "s", c2.f)
		if m := c.expect("CLOSED"); str(m[2]) != c2.want {
			t.Fatalf("filter %v: %s, want %q", c2.f, fmtMsg(m), c2.want)
		}
	}
	c.send("REQ", "s", map[string]any{"#p": []string{p}}, map[string]any{"#p": []string{p}})
	c.expect("CLOSED")
	c.subscribe("s", p)
	c.send("REQ", "other", map[string]any{"#p": []string{strings.Repeat("a", 64)}})
	if m := c.expect("CLOSED"); !strings.Contains(str(m[2]), "one subscription per connection") {
		t.Fatal(fmtMsg(m))
	}
	c.send("COUNT", "c", map[string]any{})
	c.expect("NOTICE")
}

// signed builds a kind 24134-like event with the given changes, signed by a fresh key.
func signed(t *testing.T, mod func(ev *nostr.Event)) *nostr.Event {
	t.Helper()
	ct := make([]byte, 99)
	ct[0] = 2
	ev := &nostr.Event{Kind: pairing.Kind, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"p", strings.Repeat("b", 64)}},
		Content: base64.StdEncoding.EncodeToString(ct)}
	if mod != nil {
		mod(ev)
	}
	if err := ev.Sign(nostr.GeneratePrivateKey()); err != nil {
		t.Fatal(err)
	}
	return ev
}

// eventReasons are TestEventRules' refusals, by case.
var eventReasons = func() map[string]string {
	const tags, content, date = `invalid: tags must be exactly [["p", <64 lowercase hex>]]`,
		"invalid: content must be a NIP-44 v2 ciphertext", "invalid: event creation date must be within 120 s of now"
	return map[string]string{
		"kind 1": "invalid: this endpoint only relays kind 24134", "two p tags": tags, "extra tag": tags, "no tags": tags, "uppercase p": tags,
		"stale": date, "future": date, "not nip44 v2": content, "short content": content, "plaintext": content,
		"bad signature": "invalid: bad signature", "bad id": "invalid: id does not match the event",
		"extra field": `invalid: unknown event field "x"`, "uppercase hex": "invalid: id and pubkey must be 64 lowercase hex characters",
		"missing field": "invalid: an event needs id, pubkey, created_at, kind, tags, content and sig",
		"not an object": "invalid: the event is not a JSON object",
	}
}()

func TestEventRules(t *testing.T) {
	_, url := start(t, Limits{RateEvents: 100, EventsPerConn: 100})
	sub := dial(t, url)
	sub.subscribe("s", strings.Repeat("b", 64))
	c := dial(t, url)
	if msg := c.publish(signed(t, nil)); msg != "" {
		t.Fatalf("a well-formed event was refused: %s", msg)
	}
	sub.expect("EVENT")
	for name, ev := range map[string]any{
		"kind 1":        signed(t, func(e *nostr.Event) { e.Kind = 1 }),
		"two p tags":    signed(t, func(e *nostr.Event) { e.Tags = append(e.Tags, nostr.Tag{"p", strings.Repeat("c", 64)}) }),
		"extra tag":     signed(t, func(e *nostr.Event) { e.Tags = append(e.Tags, nostr.Tag{"e", "x"}) }),
		"no tags":       signed(t, func(e *nostr.Event) { e.Tags = nostr.Tags{} }),
		"stale":         signed(t, func(e *nostr.Event) { e.CreatedAt -= 121 }),
		"future":        signed(t, func(e *nostr.Event) { e.CreatedAt += 121 }),
		"not nip44 v2":  signed(t, func(e *nostr.Event) { e.Content = base64.StdEncoding.EncodeToString(make([]byte, 120)) }),
		"short content": signed(t, func(e *nostr.Event) { e.Content = "AgAA" }),
		"plaintext":     signed(t, func(e *nostr.Event) { e.Content = "hello" }),
		"bad signature": func() any { e := signed(t, nil); e.Sig = strings.Repeat("0", 128); return e }(),
		"bad id":        func() any { e := signed(t, nil); e.ID = strings.Repeat("1", 64); return e }(),
		"extra field": func() any {
			e := signed(t, nil)
			m := map[string]any{}
			b, _ := json.Marshal(e)
			json.Unmarshal(b, &m)
			m["x"] = 1
			return m
		}(),
		"missing field": func() any {
			e := signed(t, nil)
			m := map[string]any{}
			b, _ := json.Marshal(e)
			json.Unmarshal(b, &m)
			delete(m, "sig")
			return m
		}(),
		"not an object": "x",
		"uppercase hex": func() any { e := signed(t, nil); e.PubKey = strings.ToUpper(e.PubKey); return e }(),
		"uppercase p":   signed(t, func(e *nostr.Event) { e.Tags[0][1] = strings.Repeat("B", 64) }),
	} {
		if msg := c.publish(ev); msg != eventReasons[name] {
			t.Errorf("%s: OK message %q, want %q", name, msg, eventReasons[name])
		}
	}
	if m := sub.read(); m != nil {
		t.Fatalf("a refused event was delivered: %s", fmtMsg(m))
	}
}

func TestPerConnectionEventCap(t *testing.T) {
	_, url := start(t, Limits{EventsPerConn: 3, RateEvents: 100})
	p, evs := offers(t, 4)
	sub := dial(t, url)
	sub.subscribe("s", p)
	c := dial(t, url)
	for i := 0; i < 3; i++ {
		if msg := c.publish(evs[i]); msg != "" {
			t.Fatalf("event %d refused: %s", i, msg)
		}
	}
	if msg := c.publish(evs[3]); !strings.Contains(msg, "session event limit reached") {
		t.Fatalf("4th event: %q", msg)
	}
	// A fresh connection may send it.
	if msg := dial(t, url).publish(evs[3]); msg != "" {
		t.Fatalf("new connection: %q", msg)
	}
}

// thirdOffer starts an endpoint with lim, subscribes one connection to a
// pairing p and publishes three offers to it from another, c: it returns c
// and the answer to the third (the first two are sent without a look).
func thirdOffer(t *testing.T, lim Limits) (*client, string) {
	t.Helper()
	_, url := start(t, lim)
	p, evs := offers(t, 3)
	dial(t, url).subscribe("s", p)
	c := dial(t, url)
	c.publish(evs[0])
	c.publish(evs[1])
	return c, c.publish(evs[2])
}

func TestRateLimits(t *testing.T) {
	c, msg := thirdOffer(t, Limits{RateEvents: 2, RateFrames: 5, RateWindow: time.Minute})
	if !strings.HasPrefix(msg, "rate-limited:") {
		t.Fatalf("3rd event in the window: %q", msg)
	}
	// 4 frames used; the 6th frame gets a NOTICE instead of an answer.
	c.send("CLOSE", "x")
	c.expect("CLOSED")
	c.send("CLOSE", "x")
	c.expect("CLOSED")
	c.send("CLOSE", "x")
	if m := c.expect("NOTICE"); !strings.HasPrefix(str(m[1]), "rate-limited:") {
		t.Fatal(fmtMsg(m))
	}
}

func TestDeliveriesPerPCap(t *testing.T) {
	if _, msg := thirdOffer(t, Limits{DeliveriesPerP: 2, RateEvents: 100}); !strings.HasPrefix(msg, "rate-limited:") {
		t.Fatalf("3rd delivery to one p: %q", msg)
	}
}

func TestFrameLimit(t *testing.T) {
	_, url := start(t, Limits{MaxFrame: 1024})
	c := dial(t, url)
	c.send("EVENT", strings.Repeat("x", 2000))
	if !c.waitClosed(2 * time.Second) {
		t.Fatal("connection still open after an oversized frame")
	}
}

func TestConnectionCaps(t *testing.T) {
	s, url := start(t, Limits{MaxConnsPerIP: 2, MaxConns: 3})
	dial(t, url)
	dial(t, url)
	_, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err == nil || resp == nil || resp.StatusCode != 503 {
		t.Fatalf("third connection from one address: %v %v", err, resp)
	}
	if s.Limits().MaxConns != 3 {
		t.Fatal("limits not kept")
	}
}

func TestConnectionLifetime(t *testing.T) {
	_, url := start(t, Limits{ConnLifetime: 200 * time.Millisecond})
	c := dial(t, url)
	if !c.waitClosed(2 * time.Second) {
		t.Fatal("connection outlived its lifetime")
	}
	if m := c.read(); m == nil || str(m[0]) != "NOTICE" {
		t.Fatalf("no notice before the close: %s", fmtMsg(m))
	}
}
