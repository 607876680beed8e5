package relay

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// Live delivery (fanout.go, writer.go's sendLive): written at once when the
// socket is free, queued behind what a blocked socket has not taken.

// smallRcvbuf dials with a receive buffer of a few KB, so that a client that
// stops reading fills the hub's socket quickly.
var smallRcvbuf = &websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	return d.Dial(network, addr)
}}

// publishN publishes n kind 1 events of size bytes of content, numbered in
// their content, each after the OK of the one before.
func publishN(t *testing.T, ws *websocket.Conn, sk string, n, size int) {
	t.Helper()
	pad := strings.Repeat("x", size)
	for i := 0; i < n; i++ {
		ev := nostr.Event{Kind: 1, CreatedAt: nostr.Now(), Content: fmt.Sprintf("%06d %s", i, pad), Tags: nostr.Tags{}}
		ev.Sign(sk)
		b, _ := json.Marshal([]any{"EVENT", ev})
		ws.WriteMessage(websocket.TextMessage, b)
		if msg := readUntil(t, ws, `["OK"`); !strings.Contains(msg, "true") {
			t.Fatalf("publish %d: %s", i, msg)
		}
	}
}

// readUntil reads ws until a message that starts with prefix, each within
// 10 s, and returns it.
func readUntil(t *testing.T, ws *websocket.Conn, prefix string) string {
	t.Helper()
	defer ws.SetReadDeadline(time.Time{})
	for {
		ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(msg), prefix) {
			return string(msg)
		}
	}
}

// subscribeLive sends a live-only REQ for kind 1 and waits for its EOSE.
func subscribeLive(t *testing.T, ws *websocket.Conn) {
	t.Helper()
	req, _ := json.Marshal([]any{"REQ", "live", map[string]any{"kinds": []int{1}, "limit": 0}})
	ws.WriteMessage(websocket.TextMessage, req)
	if err := untilEOSE(ws); err != nil {
		t.Fatal(err)
	}
}

// readNumbered reads n live events and reports the number each carried.
func readNumbered(ws *websocket.Conn, n int) ([]int, error) {
	var got []int
	for len(got) < n {
		ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return got, err
		}
		var m []json.RawMessage
		if err := json.Unmarshal(msg, &m); err != nil || len(m) != 3 {
			return got, fmt.Errorf("not an EVENT message: %.80s", msg)
		}
		var ev nostr.Event
		if err := json.Unmarshal(m[2], &ev); err != nil {
			return got, err
		}
		var i int
		fmt.Sscanf(ev.Content, "%d", &i)
		got = append(got, i)
	}
	return got, nil
}

func inOrder(got []int, n int) error {
	if len(got) != n {
		return fmt.Errorf("got %d events, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i {
			return fmt.Errorf("event %d of the stream is number %d: out of order or missing", i, v)
		}
	}
	return nil
}

// queuedBytes is what the relay holds queued over all its connections.
func (r *Relay) queuedBytes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for c := range r.conns {
		c.mu.Lock()
		n += c.outBytes
		c.mu.Unlock()
	}
	return n
}

// A subscriber that stops reading: the first live events go straight to its
// socket, the rest queue once the socket takes no more (partly written frames
// finished first), and when it reads again it gets every event, whole and in
// order, and the queue drains to nothing.
func TestLiveQueuesBehindBlockedSocket(t *testing.T) {
	r, url := memberHub(t, Config{MaxOutboundBytes: 64 << 20, MaxMemberQueued: 64 << 20})
	sk := nostr.GeneratePrivateKey()
	sub := smallSubscriber(t, url, sk)
	pub, _ := authed(t, url, sk)
	const n, size = 200, 50 << 10 // 10 MB: more than the sockets' buffers
	publishN(t, pub, sk, n, size)
	if q := r.queuedBytes(); q == 0 {
		t.Fatal("nothing queued behind a subscriber that does not read: the test did not block its socket")
	}
	got, err := readNumbered(sub, n)
	if err != nil {
		t.Fatalf("after %d events: %v", len(got), err)
	}
	if err := inOrder(got, n); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for r.queuedBytes() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still queued after every event was read", r.queuedBytes())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A subscriber that never reads is still dropped as a slow consumer once its
// queue passes the cap, while another
// subscriber of the same events gets them all.
func TestLiveSlowConsumerDropped(t *testing.T) {
	_, url := memberHub(t, Config{MaxOutboundBytes: 256 << 10})
	sk := nostr.GeneratePrivateKey()
	slow := smallSubscriber(t, url, sk)
	fast, _ := authed(t, url, sk)
	subscribeLive(t, fast)
	const n, size = 100, 50 << 10 // 5 MB: past 4 × 256 KiB and the sockets' buffers
	var got []int
	var readErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		got, readErr = readNumbered(fast, n)
	}()
	pub, _ := authed(t, url, sk)
	publishN(t, pub, sk, n, size)
	wg.Wait()
	if readErr != nil {
		t.Fatalf("the reading subscriber, after %d events: %v", len(got), readErr)
	}
	if err := inOrder(got, n); err != nil {
		t.Fatal(err)
	}
	for {
		slow.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, _, err := slow.ReadMessage()
		if err == nil {
			continue
		}
		// The close frame is not sent when part of a frame is out (it would
		// land inside it): then the socket just closes.
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("the slow subscriber was not dropped")
		}
		if ce, ok := err.(*websocket.CloseError); ok && ce.Code != websocket.CloseAbnormalClosure && ce.Text != "rate-limited: you are not reading fast enough" {
			t.Fatalf("the slow subscriber was closed with %v, want the slow-consumer reason", err)
		}
		return
	}
}

// An event to more subscribers than one goroutine delivers alone is shared
// between the fan-out and its helpers; every subscriber still gets every
// event once, in order.
func TestLiveSharedFanout(t *testing.T) {
	_, url := memberHub(t, Config{MaxConnsPerMember: 1000})
	sk := nostr.GeneratePrivateKey()
	const subs, n = 3 * minShare, 30
	conns := make([]*websocket.Conn, subs)
	for i := range conns {
		conns[i], _ = authed(t, url, sk)
		subscribeLive(t, conns[i])
	}
	wait := readAll(conns, func(_ int, ws *websocket.Conn) error {
		got, err := readNumbered(ws, n)
		if err == nil {
			err = inOrder(got, n)
		}
		return err
	})
	pub, _ := authed(t, url, sk)
	publishN(t, pub, sk, n, 100)
	if err := wait(); err != nil {
		t.Fatal(err)
	}
}

// readAll runs read on every connection at once; wait returns the first
// connection's error, once all are done.
func readAll(conns []*websocket.Conn, read func(i int, ws *websocket.Conn) error) (wait func() error) {
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, ws := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = read(i, ws)
		}()
	}
	return func() error {
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return fmt.Errorf("connection %d: %w", i, err)
			}
		}
		return nil
	}
}

// smallSubscriber is a member's connection with a small receive buffer (its
// socket fills soon when it does not read), subscribed to live events and
// closed when the test ends.
func smallSubscriber(t *testing.T, url, sk string) *websocket.Conn {
	t.Helper()
	ws, why, err := dialAuthed(smallRcvbuf, url, sk)
	if err != nil || why != "" {
		t.Fatalf("subscriber: %v %s", err, why)
	}
	t.Cleanup(func() { ws.Close() })
	subscribeLive(t, ws)
	return ws
}
