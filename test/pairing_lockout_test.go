package test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ainb/hive/pairing"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// dialerFrom dials from the loopback address src (127.0.0.2, ...), so the
// hub on 127.0.0.1 sees another source address; TLS is not checked (the
// attacker needs no pin).
func dialerFrom(src string) *websocket.Dialer {
	nd := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return &websocket.Dialer{
		NetDialContext:   func(ctx context.Context, n, a string) (net.Conn, error) { return nd.DialContext(ctx, n, a) },
		TLSClientConfig:  &tls.Config{InsecureSkipVerify: true},
		HandshakeTimeout: 5 * time.Second,
	}
}

// junkOffer is a kind 24134 event to p that passes every check of the
// pairing endpoint but decryption (which the endpoint never does).
func junkOffer(p string) []byte {
	ct := make([]byte, 120)
	rand.Read(ct)
	ct[0] = 2
	ev := &nostr.Event{Kind: pairing.Kind, CreatedAt: nostr.Now(), Content: base64.StdEncoding.EncodeToString(ct), Tags: nostr.Tags{{"p", p}}}
	ev.Sign(nostr.GeneratePrivateKey())
	b, _ := json.Marshal([]any{"EVENT", ev})
	return b
}

// lockoutStats is what the pairing flood saw.
type lockoutStats struct {
	sent, delivered, limited atomic.Int64
	firstLimit               atomic.Value // the first rate-limited: reason
}

// floodPairing is the probe's attack from one address: a subscriber that
// moves to a fresh recipient key every 16 offers, and 13 sender
// connections that each send their 8 events and reconnect, until total
// events were sent, 64 were refused rate-limited, or d passed.
func floodPairing(t *testing.T, url, src string, total int64, d time.Duration) *lockoutStats {
	t.Helper()
	dl := dialerFrom(src)
	st := &lockoutStats{}
	var pmu sync.Mutex
	var p string
	var sub *websocket.Conn
	uses := 0
	// recipient moves to a fresh recipient key every 16 offers, on a new
	// subscriber connection (a connection may send 20 messages per 10 s).
	recipient := func() string {
		pmu.Lock()
		defer pmu.Unlock()
		if uses%16 == 0 {
			if sub != nil {
				sub.Close()
			}
			p = nostr.GeneratePrivateKey() // any 64 hex will do
			ws, _, err := dl.Dial(url, nil)
			if err != nil {
				return p
			}
			b, _ := json.Marshal([]any{"REQ", "s", map[string]any{"kinds": []int{pairing.Kind}, "#p": []string{p}}})
			ws.WriteMessage(websocket.TextMessage, b)
			ws.SetReadDeadline(time.Now().Add(5 * time.Second))
			ws.ReadMessage() // EOSE
			ws.SetReadDeadline(time.Time{})
			go func() { // drain it
				for {
					if _, _, err := ws.ReadMessage(); err != nil {
						return
					}
				}
			}()
			sub = ws
		}
		uses++
		return p
	}
	defer func() {
		if sub != nil {
			sub.Close()
		}
	}()
	end := time.Now().Add(d)
	stop := func() bool { return st.sent.Load() >= total || st.limited.Load() >= 64 || time.Now().After(end) }
	var wg sync.WaitGroup
	for w := 0; w < 13; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop() {
				ws, _, err := dl.Dial(url, nil)
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				for i := 0; i < 8 && !stop(); i++ {
					msg := junkOffer(recipient())
					if ws.WriteMessage(websocket.TextMessage, msg) != nil {
						break
					}
					st.sent.Add(1)
					var ev struct {
						ID string `json:"id"`
					}
					var arr []json.RawMessage
					json.Unmarshal(msg, &arr)
					json.Unmarshal(arr[1], &ev)
					ok, why, err := readOK(ws, ev.ID, 5*time.Second)
					switch {
					case err != nil:
					case ok:
						st.delivered.Add(1)
					case strings.HasPrefix(why, "rate-limited:"):
						st.limited.Add(1)
						st.firstLimit.CompareAndSwap(nil, why)
					}
				}
				ws.Close()
			}
		}()
	}
	wg.Wait()
	return st
}

// TestPairingLockoutFromOneAddress: one address that respects every
// per-connection limit floods the pairing endpoint with offers to recipient
// keys it rotates; a real hive pair / hive join from another address must
// still work. Before the per-address budget the flood filled the endpoint's
// seen-id set (4,096 deliveries) and every offer on the hub got
// rate-limited: for 300 s.
func TestPairingLockoutFromOneAddress(t *testing.T) {
	h := startPairingHub(t)
	pairURL := h.hub.URL + "/pair"
	start := time.Now()
	st := floodPairing(t, pairURL, "127.0.0.2", 6000, 40*time.Second)
	first, _ := st.firstLimit.Load().(string)
	t.Logf("attacker 127.0.0.2: %d offers sent in %s, %d delivered, %d refused rate-limited (first: %q)",
		st.sent.Load(), time.Since(start).Round(time.Millisecond), st.delivered.Load(), st.limited.Load(), first)
	if want := "rate-limited: your address has used its 128 pairing events for 300 s; try again in "; !strings.HasPrefix(first, want) {
		t.Errorf("the attacker's first refusal %q, want it to start %q", first, want)
	}
	if n := st.delivered.Load(); n > 128 {
		t.Errorf("one address had %d offers delivered, want at most its budget of 128", n)
	}

	pairAfterFlood(t, h, "after the flood", "--expires", "1d")
}

// pairAfterFlood runs a hive pair and a hive join that both confirm, and
// fails the test (naming when) unless both succeed.
func pairAfterFlood(t *testing.T, h *pairingHub, when string, pairArgs ...string) {
	t.Helper()
	pair, join, _ := pairAndJoin(t, h, newCLI(t), pairArgs...)
	join.answer("y")
	pair.answer("y")
	join.next("done")
	pair.next("done")
	if c := join.exit(); c != 0 {
		t.Fatalf("hive join %s: exit %d: %s", when, c, join.errors())
	}
	if c := pair.exit(); c != 0 {
		t.Fatalf("hive pair %s: exit %d: %s", when, c, pair.errors())
	}
}

// TestPairingAfterFloodFromSameAddress: behind a NAT or a reverse proxy
// the attacker and the member share one source address. The flood spends
// that address's pairing budget; a member's `hive pair` (authenticated on
// the endpoint) and the `hive join` answering it, from that same address
// and right after the flood, must still work: the budget the flood spent
// is that of unauthenticated sessions, and a member's session has its own.
func TestPairingAfterFloodFromSameAddress(t *testing.T) {
	h := startPairingHub(t)
	st := floodPairing(t, h.hub.URL+"/pair", "127.0.0.1", 6000, 40*time.Second)
	floodEnd := time.Now()
	first, _ := st.firstLimit.Load().(string)
	t.Logf("attacker 127.0.0.1: %d offers sent, %d delivered, %d refused rate-limited (first: %q)",
		st.sent.Load(), st.delivered.Load(), st.limited.Load(), first)
	if want := "rate-limited: your address has used its 128 pairing events for 300 s; try again in "; !strings.HasPrefix(first, want) {
		t.Fatalf("the flood was not refused for its address budget: first refusal %q, want it to start %q", first, want)
	}

	pairAfterFlood(t, h, "from the flooding address", "--expires", "1d", "--timeout", "20s")
	if d := time.Since(floodEnd); d > 20*time.Second {
		t.Errorf("pairing after the flood took %s, want it within 20 s", d.Round(time.Millisecond))
	}
}
