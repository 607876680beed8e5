package test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// closeOf reads until the hub closes ws and returns the close frame's code and
// reason (code 0 when the connection ended without one), failing after d.
func closeOf(t testing.TB, ws *websocket.Conn, d time.Duration) (int, string) {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(d))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, ce.Text
			}
			if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
				t.Fatalf("the hub did not close the connection within %s", d)
			}
			return 0, err.Error()
		}
	}
}

// as connects to the hub process and authenticates as k.
func (p *hubProc) as(t testing.TB, k key) *raw {
	t.Helper()
	r := dialRaw(t, p.URL)
	if ok, msg := r.auth(k, p.URL); !ok || msg != "" { // a message with OK true: a NIP-43 guest
		t.Fatalf("AUTH not admitted: %v %s", ok, msg)
	}
	return r
}

// dialStatus dials url and returns nil, or the refusal's HTTP status and body.
func dialStatus(url string) (*websocket.Conn, int, string) {
	ws, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err == nil {
		return ws, 0, ""
	}
	if resp == nil {
		return nil, -1, err.Error()
	}
	body, _ := io.ReadAll(resp.Body)
	return nil, resp.StatusCode, string(body)
}

// The auth timeout is enforced when it falls due, not at the next ping (the
// hub pinged every 30 s and closed idle connections after 60 to 90 s).
func TestAuthTimeoutEnforcedBinary(t *testing.T) {
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", newKey(t).pk, "--auth-timeout", "1s")
	idle := dialRaw(t, p.URL)
	start := time.Now()
	code, reason := closeOf(t, idle.ws, 10*time.Second)
	took := time.Since(start)
	if !strings.HasPrefix(reason, "auth-required:") {
		t.Fatalf("closed with %d %q, want an auth-required: reason", code, reason)
	}
	if took < 800*time.Millisecond || took > 4*time.Second {
		t.Fatalf("closed after %s with --auth-timeout 1s", took.Round(time.Millisecond))
	}
}

// Connections that never authenticate are capped per source address and in
// all: one address could open 20,000 and exhaust the hub's file descriptors.
// A connection that authenticates gives its slot back.
func TestUnauthenticatedConnectionCapsBinary(t *testing.T) {
	admin := newKey(t)
	t.Run("per address, default", func(t *testing.T) {
		p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
		open, refused := 0, ""
		for i := 0; i < 140; i++ {
			ws, status, body := dialStatus(p.URL)
			if ws == nil {
				if status != http.StatusServiceUnavailable {
					t.Fatalf("dial %d: status %d %q, want 503", i, status, body)
				}
				refused = body
				continue
			}
			t.Cleanup(func() { ws.Close() })
			open++
		}
		if open != 128 || !strings.HasPrefix(refused, "rate-limited:") || !strings.Contains(refused, "per_ip") {
			t.Fatalf("%d of 140 unauthenticated connections open (want 128), refusal %q", open, refused)
		}
	})
	t.Run("per address, AUTH frees the slot", func(t *testing.T) {
		p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk, "--max-unauth-per-ip", "3")
		var conns []*raw
		for i := 0; i < 3; i++ {
			conns = append(conns, dialRaw(t, p.URL))
		}
		if ws, status, body := dialStatus(p.URL); ws != nil || status != http.StatusServiceUnavailable {
			t.Fatalf("a 4th unauthenticated connection with --max-unauth-per-ip 3: %v %d %q", ws != nil, status, body)
		}
		if ok, msg := conns[0].auth(admin, p.URL); !ok {
			t.Fatal(msg)
		}
		ws, status, body := dialStatus(p.URL)
		if ws == nil {
			t.Fatalf("after one AUTH, a new connection is still refused: %d %q", status, body)
		}
		ws.Close()
	})
	t.Run("in all", func(t *testing.T) {
		p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk, "--max-unauth-conns", "2")
		a, _ := dialRaw(t, p.URL), dialRaw(t, p.URL)
		ws, status, body := dialStatus(p.URL)
		if ws != nil || status != http.StatusServiceUnavailable || !strings.Contains(body, "max_unauth_connections") {
			t.Fatalf("a 3rd unauthenticated connection with --max-unauth-conns 2: %v %d %q", ws != nil, status, body)
		}
		a.ws.Close()
		deadline := time.Now().Add(3 * time.Second)
		for {
			ws, _, _ := dialStatus(p.URL)
			if ws != nil {
				ws.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("a closed connection's slot was not given back")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// Before AUTH a connection gets a small budget: short messages, a few of them,
// and no signature check for anything but the AUTH event.
func TestUnauthenticatedBudgetBinary(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)

	t.Run("large message before AUTH", func(t *testing.T) {
		c := dialRaw(t, p.URL)
		c.send([]any{"REQ", "x", nostr.Filter{Search: strings.Repeat("a", 20<<10)}})
		code, reason := closeOf(t, c.ws, 5*time.Second)
		if code != websocket.CloseMessageTooBig || !strings.HasPrefix(reason, "invalid: ") || !strings.Contains(reason, "max_unauth_message_length") {
			t.Fatalf("a 20 KiB message before AUTH: closed with %d %q", code, reason)
		}
		// The same size is fine once authenticated.
		m := p.as(t, admin)
		m.must(admin.sign(t, 1, strings.Repeat("b", 20<<10)))
	})

	t.Run("message rate before AUTH", func(t *testing.T) {
		c := dialRaw(t, p.URL)
		for i := 0; i < 100; i++ {
			if err := c.ws.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(`["REQ","s%d",{}]`, i))); err != nil {
				break
			}
		}
		code, reason := closeOf(t, c.ws, 5*time.Second)
		if !strings.HasPrefix(reason, "rate-limited: ") {
			t.Fatalf("100 messages at once before AUTH: closed with %d %q, want rate-limited:", code, reason)
		}
	})

	t.Run("no signature check before AUTH", func(t *testing.T) {
		c := dialRaw(t, p.URL)
		ev := admin.sign(t, 1, "junk signature")
		ev.Sig = strings.Repeat("ab", 64)
		c.send([]any{"EVENT", ev})
		ok := c.expect("OK")
		if reason := str(ok[3]); !strings.HasPrefix(reason, "auth-required: ") {
			t.Fatalf("EVENT with a junk signature before AUTH answered %q, want auth-required: (refused before its signature is checked)", reason)
		}
	})
}

// A message over max_message_length closes the connection with a reason that
// says so (it was code 1009 with an empty reason).
func TestOversizedMessageReasonBinary(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	c := p.as(t, admin)
	c.send([]any{"REQ", "x", nostr.Filter{Search: strings.Repeat("a", 300<<10)}})
	code, reason := closeOf(t, c.ws, 5*time.Second)
	if !strings.HasPrefix(reason, "invalid: ") || !strings.Contains(reason, "max_message_length") {
		t.Fatalf("a 300 KiB message: closed with %d %q, want an invalid: reason naming max_message_length", code, reason)
	}
}

// An AUTH relay tag carrying user info, a query or a fragment is refused, not
// normalised away.
func TestAuthRelayTagStrictBinary(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	host := strings.TrimPrefix(p.URL, "ws://")
	for _, u := range []string{p.URL + "/?x=1", p.URL + "?", p.URL + "/#frag", "ws://user@" + host, "ws://user:pw@" + host + "/"} {
		c := dialRaw(t, p.URL)
		if ok, msg := c.auth(admin, u); ok || !strings.HasPrefix(msg, "invalid: ") {
			t.Errorf("AUTH with relay %q: ok=%v %q, want refused with invalid:", u, ok, msg)
		}
	}
	c := dialRaw(t, p.URL)
	if ok, msg := c.auth(admin, p.URL+"/"); !ok {
		t.Fatalf("AUTH with the plain URL: %q", msg)
	}
}

// A valid event with an extra field is accepted; the field is neither stored
// nor forwarded.
func TestUnknownEventFieldIgnoredBinary(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	sub := p.as(t, admin)
	if _, closed := sub.req("live", nostr.Filter{Kinds: []int{1}, Limit: 1}); closed != "" {
		t.Fatal(closed)
	}
	pub := p.as(t, admin)
	ev := admin.sign(t, 1, "with an extra field")
	obj, _ := json.Marshal(ev)
	withExtra := `{"x_client":"secret-ish",` + string(obj[1:])
	pub.send(`["EVENT",` + withExtra + `]`)
	ok := pub.expect("OK")
	if str(ok[1]) != ev.ID || string(ok[2]) != "true" {
		t.Fatalf("event with an extra field: %s", ok)
	}
	live := sub.expect("EVENT")
	stored := p.as(t, admin)
	stored.send([]any{"REQ", "q", nostr.Filter{IDs: []string{ev.ID}}})
	got := stored.expect("EVENT")
	for what, m := range map[string][]json.RawMessage{"live": live, "stored": got} {
		if strings.Contains(string(m[2]), "x_client") {
			t.Errorf("%s copy carries the extra field: %s", what, m[2])
		}
		var back nostr.Event
		if json.Unmarshal(m[2], &back) != nil || back.ID != ev.ID || !back.CheckID() {
			t.Errorf("%s copy is not the event: %s", what, m[2])
		}
	}
}
