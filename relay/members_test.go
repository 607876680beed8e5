package relay

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// memberHub is a relay with AUTH required and every key admitted, on
// 127.0.0.1 over a real SQLite file.
func memberHub(t *testing.T, cfg Config) (*Relay, string) {
	t.Helper()
	r, url, stop, err := serveHub(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return r, url
}

// serveHub serves a relay with AUTH required and every key admitted on
// 127.0.0.1, over a SQLite file in dir; stop closes it all.
func serveHub(dir string, cfg Config) (r *Relay, url string, stop func(), err error) {
	st, err := sqlite.Open(filepath.Join(dir, "hive.db"), store.Options{})
	if err != nil {
		return nil, "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.Close()
		return nil, "", nil, err
	}
	url = "ws://" + ln.Addr().String()
	cfg.RequireAuth, cfg.PublicURLs = true, []string{url}
	r = New(cfg, st, discardLog())
	r.Hooks.Admit = append(r.Hooks.Admit, func(context.Context, *Conn, *nostr.Event) string { return "" })
	srv := &http.Server{Handler: r, ConnState: r.ConnState}
	go srv.Serve(ln)
	return r, url, func() { srv.Close(); r.Close(); st.Close() }, nil
}

// authed dials url and authenticates as sk; it returns the connection and
// the OK's reason ("" when accepted).
func authed(t testing.TB, url, sk string) (*websocket.Conn, string) {
	t.Helper()
	ws, why, err := dialAuthed(websocket.DefaultDialer, url, sk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, why
}

// dialAuthed dials url with d and authenticates as sk; it returns the
// connection and the OK's reason ("" when accepted).
func dialAuthed(d *websocket.Dialer, url, sk string) (*websocket.Conn, string, error) {
	ws, _, err := d.Dial(url, nil)
	if err != nil {
		return nil, "", err
	}
	fail := func(err error) (*websocket.Conn, string, error) {
		ws.Close()
		return nil, "", err
	}
	var m []json.RawMessage
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for len(m) == 0 || string(m[0]) != `"AUTH"` {
		_, b, err := ws.ReadMessage()
		if err != nil {
			return fail(err)
		}
		json.Unmarshal(b, &m)
	}
	var challenge string
	json.Unmarshal(m[1], &challenge)
	ev := nostr.Event{Kind: 22242, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"relay", url}, {"challenge", challenge}}}
	ev.Sign(sk)
	b, _ := json.Marshal([]any{"AUTH", ev})
	ws.WriteMessage(websocket.TextMessage, b)
	for {
		_, b, err := ws.ReadMessage()
		if err != nil {
			return fail(err)
		}
		var ok []json.RawMessage
		if json.Unmarshal(b, &ok) == nil && len(ok) == 4 && string(ok[0]) == `"OK"` {
			var why string
			json.Unmarshal(ok[3], &why)
			ws.SetReadDeadline(time.Time{})
			return ws, why, nil
		}
	}
}

func (r *Relay) memberQueued(key string) (queued, conns int, ok bool) {
	// conns is guarded by the members' lock, queued by the member's own.
	r.members.mu.Lock()
	m := r.members.m[key]
	if m != nil {
		conns = m.conns
	}
	r.members.mu.Unlock()
	if m == nil {
		return 0, 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.queued, conns, true
}

// One member's connections share its budget: the connection cap refuses
// the next AUTH with its reason; with a queue budget and one read slot far
// smaller than the answers, every reader still gets every event; and what
// they queued is given back to the byte, closed mid-answer or not.
func TestMemberBudget(t *testing.T) {
	r, url := memberHub(t, Config{MaxConnsPerMember: 3, MaxMemberQueued: 256 << 10, MaxMemberReads: 1})
	sk := nostr.GeneratePrivateKey()
	pk, _ := nostr.GetPublicKey(sk)
	var conns []*websocket.Conn
	for i := 0; i < 3; i++ {
		ws, why := authed(t, url, sk)
		if why != "" {
			t.Fatalf("AUTH %d refused: %s", i, why)
		}
		conns = append(conns, ws)
	}
	if _, why := authed(t, url, sk); why != "rate-limited: 3 connections of this member (its agents' and devices' included) are open (max_connections_per_member); close some first" {
		t.Fatalf("fourth AUTH: %q", why)
	}
	big := strings.Repeat("x", 100<<10) // 10 MB in all: more than the sockets buffer
	for i := 0; i < 100; i++ {
		ev := nostr.Event{Kind: 1, CreatedAt: nostr.Timestamp(1700000000 + i), Content: big, Tags: nostr.Tags{}}
		ev.Sign(sk)
		b, _ := json.Marshal([]any{"EVENT", ev})
		conns[0].WriteMessage(websocket.TextMessage, b)
		readUntil(t, conns[0], `["OK"`)
	}
	req, _ := json.Marshal([]any{"REQ", "all", map[string]any{"kinds": []int{1}, "limit": 100}, map[string]any{"authors": []string{pk}, "limit": 100}})
	// The third connection goes first, takes one event and is gone
	// mid-answer, what it had queued unread.
	conns[2].WriteMessage(websocket.TextMessage, req)
	readUntil(t, conns[2], `["EVENT"`)
	for _, ws := range conns[:2] {
		ws.WriteMessage(websocket.TextMessage, req)
	}
	// both REQs are taken (registered, then waiting for the read slot the
	// third connection holds) before it goes
	for deadline := time.Now().Add(10 * time.Second); r.Subscriptions() < 3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions open, want 3", r.Subscriptions())
		}
	}
	conns[2].Close()
	var wg sync.WaitGroup
	got := make([]int, 2)
	for i, ws := range conns[:2] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws.SetReadDeadline(time.Now().Add(20 * time.Second))
			for {
				_, msg, err := ws.ReadMessage()
				if err != nil || strings.HasPrefix(string(msg), `["EOSE"`) {
					return
				}
				if strings.HasPrefix(string(msg), `["EVENT"`) {
					got[i]++
				}
			}
		}()
	}
	wg.Wait()
	if got[0] != 100 || got[1] != 100 {
		t.Fatalf("readers got %v events, want 100 each (the filters overlap: each event once)", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		q, n, _ := r.memberQueued(pk)
		if q == 0 && n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("member queued %d bytes over %d connections after the answers, want 0 over 2", q, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	conns[0].Close()
	conns[1].Close()
	for time.Now().Before(deadline.Add(5 * time.Second)) {
		if _, _, ok := r.memberQueued(pk); !ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	q, n, _ := r.memberQueued(pk)
	t.Fatalf("member still held %d bytes over %d connections after they all closed", q, n)
}
