package test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// TestFastReaderGetsBigPageBinary: a member reading as fast as it can gets
// every event of a 12 MB page, and of a default-limit REQ over the same
// events. The slow-consumer cap counted bytes queued, so such a reader was
// dropped (rate-limited: you are not reading fast enough) after 35-81 events.
func TestFastReaderGetsBigPageBinary(t *testing.T) {
	const n, size = 100, 120 << 10
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	pub := p.as(t, admin)
	ids := make([]string, n)
	msgs := make([][]byte, n)
	for i := range msgs {
		ev := admin.sign(t, 1, fmt.Sprintf("%03d %s", i, strings.Repeat("x", size)), nostr.Tag{"t", "big"})
		ids[i] = ev.ID
		msgs[i], _ = json.Marshal([]any{"EVENT", ev})
	}
	var acked, refused atomic.Int64
	if err := publishPipelined(pub.ws, 0, ids, msgs, 16, time.Now().Add(60*time.Second), &acked, &refused); err != nil {
		t.Fatal(err)
	}
	for _, f := range []nostr.Filter{
		{Kinds: []int{1}, Tags: nostr.TagMap{"t": {"big"}}, Limit: n},
		{Kinds: []int{1}, Tags: nostr.TagMap{"t": {"big"}}},
	} {
		r := p.as(t, admin)
		start := time.Now()
		evs, closed := r.req("page", f)
		if closed != "" || len(evs) != n {
			t.Fatalf("REQ %v: %d of %d events, closed %q", f, len(evs), n, closed)
		}
		t.Logf("REQ %v: %d events (%.1f MB) in %s", f, n, float64(n*size)/(1<<20), time.Since(start).Round(time.Millisecond))
	}
}

// A client that asks for a big page and never reads is dropped once its socket
// takes nothing for WriteTimeout, and the others keep being served.
func TestNonReaderOfBigPageDropped(t *testing.T) {
	h := startOpenHub(t, relay.Config{WriteTimeout: 500 * time.Millisecond, MaxOutboundBytes: 256 << 10})
	k := newKey(t)
	pub := dialRaw(t, h.URL)
	for i := 0; i < 60; i++ {
		pub.must(k.sign(t, 1, fmt.Sprintf("%d %s", i, strings.Repeat("y", 100<<10))))
	}
	slow := dialRaw(t, h.URL)
	slow.send([]any{"REQ", "all", nostr.Filter{Kinds: []int{1}}})
	deadline := time.Now().Add(10 * time.Second)
	for h.Relay.Connections() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the client that does not read is still connected (%d connections)", h.Relay.Connections())
		}
		time.Sleep(20 * time.Millisecond)
	}
	pub.must(k.sign(t, 1, "still served"))
	slow.ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := slow.ws.ReadMessage(); err != nil {
			// 1006: the close frame could not be sent after a partly written frame.
			if ce, ok := err.(*websocket.CloseError); ok && ce.Code != websocket.CloseAbnormalClosure && !strings.HasPrefix(ce.Text, "rate-limited:") {
				t.Errorf("closed with %q", ce.Text)
			}
			break
		}
	}
}

// A REQ is read from the log a page at a time; across pages, and across
// events sharing a created_at at a page's edge, the answer is the same as one
// query: every event once, newest first, ties by id, up to the limit.
func TestPagedAnswerIsComplete(t *testing.T) {
	h := startOpenHub(t, relay.Config{})
	k := newKey(t)
	pub := dialRaw(t, h.URL)
	// The spec lets an event still on its way through the fan-out reach a new
	// REQ live, inside its stored answer; watching every event arrive live
	// first means the REQs below find the fan-out done with them.
	watch := dialRaw(t, h.URL)
	if evs, closed := watch.req("w", nostr.Filter{Kinds: []int{1}, Tags: nostr.TagMap{"t": {"paged"}}, LimitZero: true}); len(evs) != 0 || closed != "" {
		t.Fatalf("live-only REQ: %d stored events, closed %q", len(evs), closed)
	}
	base := nostr.Now() - 100
	for i := 0; i < 330; i++ {
		ev := &nostr.Event{Kind: 1, CreatedAt: base + nostr.Timestamp(i/70), Content: fmt.Sprint(i), Tags: nostr.Tags{{"t", "paged"}}}
		if err := ev.Sign(k.sk); err != nil {
			t.Fatal(err)
		}
		pub.must(ev)
	}
	for n := 0; n < 330; {
		if m := watch.next(10 * time.Second); str(m[0]) == "EVENT" && str(m[1]) == "w" {
			n++
		}
	}
	for _, limit := range []int{0, 1, 99, 100, 101, 140, 250, 330, 500} {
		f := nostr.Filter{Kinds: []int{1}, Tags: nostr.TagMap{"t": {"paged"}}, Limit: limit}
		want, err := h.Store.QueryRaw(ctxT(t), f, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, closed := dialRaw(t, h.URL).req("p", f)
		if closed != "" || len(got) != len(want) {
			t.Fatalf("limit %d: %d events (want %d), closed %q", limit, len(got), len(want), closed)
		}
		for i := range got {
			if got[i].ID != want[i].ID {
				t.Fatalf("limit %d: event %d is %s, want %s\n%s", limit, i, got[i].ID[:8], want[i].ID[:8], pagedDiff(got, want, i))
			}
		}
	}
}

// pagedDiff lists, around the first difference at i, the events got and want
// hold (id prefix and created_at), and any id got holds twice.
func pagedDiff(got []*nostr.Event, want []store.Stored, i int) string {
	var b strings.Builder
	for j := max(0, i-3); j < min(len(got), i+4); j++ {
		fmt.Fprintf(&b, "  %3d got %s@%d want %s@%d\n", j, got[j].ID[:8], got[j].CreatedAt, want[j].ID[:8], want[j].CreatedAt)
	}
	seen := map[string]int{}
	for j, ev := range got {
		if k, dup := seen[ev.ID]; dup {
			fmt.Fprintf(&b, "  got holds %s twice: at %d and %d\n", ev.ID[:8], k, j)
		}
		seen[ev.ID] = j
	}
	return b.String()
}
