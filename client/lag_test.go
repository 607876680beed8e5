package client_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
)

// A live subscription whose reader takes nothing while 900 messages are
// published (300 dated a second apart, then 600 at full speed, many in one
// second) never holds more than its bounds; it lags, and once the reader
// reads, every message arrives exactly once, in created_at order (the dated
// ones in the order sent), and then live ones again.
func TestSlowReaderQueueBoundedThenCaughtUp(t *testing.T) {
	th, admin := startHubAdmin(t)
	ctx := ctxT(t, 120*time.Second)
	const maxEvents, maxBytes = 40, 24 << 10
	_, sub := th.liveReader(t, ctx, admin, client.Options{MaxQueuedEvents: maxEvents, MaxQueuedBytes: maxBytes}, nil)

	var peakEvents, peakBytes atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			n, b := sub.Queued()
			peakEvents.Store(max(peakEvents.Load(), int64(n)))
			peakBytes.Store(max(peakBytes.Load(), int64(b)))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	var sent []nostr.Event
	base := nostr.Now() - 400
	body := strings.Repeat("x", 300)
	for i := range 900 {
		ev := client.Message("c", fmt.Sprintf("%03d %s", i, body))
		if i < 300 {
			ev.CreatedAt = base + nostr.Timestamp(i)
		}
		signed, err := admin.Publish(ctx, ev)
		if err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
		sent = append(sent, signed)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !sub.Lagged() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !sub.Lagged() {
		t.Fatal("the subscription did not lag with its reader blocked")
	}
	close(stop)
	<-sampled
	// The bytes bound holds to within the one event that is always queued.
	if n, b := peakEvents.Load(), peakBytes.Load(); n > maxEvents || b > maxBytes+1024 {
		t.Fatalf("queue peaked at %d events, %d bytes; bounds %d, %d", n, b, maxEvents, maxBytes)
	}

	got := map[string]int{}
	var order []nostr.Event
	for len(order) < len(sent) {
		ev, ok := nextOf(t, sub, 30*time.Second)
		if !ok {
			t.Fatalf("only %d of %d messages delivered within 30 s of the last", len(order), len(sent))
		}
		got[ev.ID]++
		if got[ev.ID] > 1 {
			t.Fatalf("%s (%q) delivered twice", ev.ID, ev.Content[:3])
		}
		order = append(order, ev)
	}
	for _, ev := range sent {
		if got[ev.ID] != 1 {
			t.Fatalf("message %q delivered %d times", ev.Content[:3], got[ev.ID])
		}
	}
	for i := 1; i < len(order); i++ {
		if order[i].CreatedAt < order[i-1].CreatedAt {
			t.Fatalf("delivery %d (%q, %d) is older than the one before (%q, %d)", i, order[i].Content[:3], order[i].CreatedAt, order[i-1].Content[:3], order[i-1].CreatedAt)
		}
	}
	for i := range 300 {
		if order[i].ID != sent[i].ID {
			t.Fatalf("delivery %d is %q, not %q", i, order[i].Content[:3], sent[i].Content[:3])
		}
	}
	if ev, ok := nextOf(t, sub, time.Second); ok {
		t.Fatalf("an extra delivery %q", ev.Content[:3])
	}
	for deadline := time.Now().Add(10 * time.Second); sub.Lagged(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still lagged after the reader caught up")
		}
	}
	live, err := admin.Publish(ctx, client.Message("c", "live again"))
	if err != nil {
		t.Fatal(err)
	}
	if ev, ok := nextOf(t, sub, 10*time.Second); !ok || ev.ID != live.ID {
		t.Fatalf("after the catch-up: %q, %v; want the live message", ev.Content, ok)
	}
}
