package relay

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ainb/hive/store"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// Events that queue while the fan-out is busy go out joined, one round for
// all of them (fanjoin.go): every subscription still gets every event once,
// in commit order, on connections with one subscription and with two, and
// the round is shared with the helpers.
func TestLiveJoinedRound(t *testing.T) {
	r, url := memberHub(t, Config{MaxConnsPerMember: 1000})
	sk := nostr.GeneratePrivateKey()
	const subs, n = 2*minShare + 1, 20
	conns := make([]*websocket.Conn, subs)
	for i := range conns {
		conns[i], _ = authed(t, url, sk)
		subscribeLive(t, conns[i])
	}
	req, _ := json.Marshal([]any{"REQ", "second", map[string]any{"kinds": []int{1}, "limit": 0}})
	conns[0].WriteMessage(websocket.TextMessage, req)
	if err := untilEOSE(conns[0]); err != nil {
		t.Fatal(err)
	}
	// The first event's audience holds the fan-out until the others queue.
	gate, held := make(chan struct{}), make(chan struct{})
	var judged atomic.Int64
	r.Hooks.Audience = func(*store.Stored) func(*Conn) bool {
		if judged.Add(1) == 1 {
			close(held)
			<-gate
		}
		return func(*Conn) bool { return true }
	}
	events := make([]*nostr.Event, n)
	for i := range events {
		ev := &nostr.Event{Kind: 1, CreatedAt: nostr.Now(), Content: fmt.Sprintf("%06d", i), Tags: nostr.Tags{}}
		ev.Sign(sk)
		events[i] = ev
	}
	r.Broadcast(events[0])
	<-held // the fan-out holds the first event
	for _, ev := range events[1:] {
		r.Broadcast(ev)
	}
	if q := len(r.fanout); q != n-1 {
		t.Fatalf("%d events queued behind the first, want %d", q, n-1)
	}
	close(gate)

	err := readAll(conns, func(i int, ws *websocket.Conn) error {
		want := map[string]int{"live": n}
		if i == 0 {
			want["second"] = n
		}
		return readEachInOrder(ws, want)
	})()
	if err != nil {
		t.Fatal(err)
	}
}

// readEachInOrder reads the EVENTs want counts, by subscription, and checks
// that each subscription got its events numbered 0, 1, ... in order.
func readEachInOrder(ws *websocket.Conn, want map[string]int) error {
	got := map[string][]int{}
	total := 0
	for _, k := range want {
		total += k
	}
	for i := 0; i < total; i++ {
		ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return fmt.Errorf("after %d events: %w", i, err)
		}
		var m []json.RawMessage
		var sub string
		var ev nostr.Event
		if json.Unmarshal(msg, &m) != nil || len(m) != 3 || json.Unmarshal(m[1], &sub) != nil || json.Unmarshal(m[2], &ev) != nil {
			return fmt.Errorf("not an EVENT message: %.80s", msg)
		}
		var k int
		fmt.Sscanf(ev.Content, "%d", &k)
		got[sub] = append(got[sub], k)
	}
	for sub, n := range want {
		if err := inOrder(got[sub], n); err != nil {
			return fmt.Errorf("subscription %s: %w", sub, err)
		}
	}
	return nil
}
