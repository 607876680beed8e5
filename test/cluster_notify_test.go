package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// TestInstancesDeliverOnNotify: an event committed on instance A reaches a
// live subscriber on instance B through PostgreSQL's NOTIFY, not B's poll of
// the log. Both instances poll only every 30 s, so an event B learns of
// from its poll alone would take seconds to arrive; each of 20 must arrive
// within 5 s of its OK on A (in milliseconds when NOTIFY drives delivery).
func TestInstancesDeliverOnNotify(t *testing.T) {
	admin := newKey(t)
	a, b, _ := startProcPair(t, admin, "--store-poll", "30s")
	arrived := make(chan *nostr.Event, 64)
	liveOn(t, b, admin, nostr.Filter{Kinds: []int{1}, Tags: nostr.TagMap{"t": {"notify"}}}, func(ev *nostr.Event, _ time.Time) {
		arrived <- ev
	})
	pub := dialRaw(t, a.URL)
	if ok, msg := pub.auth(admin, a.URL); !ok {
		t.Fatalf("AUTH on A refused: %s", msg)
	}
	var slowest time.Duration
	for i := 0; i < 20; i++ {
		ev := admin.sign(t, 1, fmt.Sprint("event ", i), nostr.Tag{"t", "notify"})
		if ok, msg := pub.publish(ev); !ok {
			t.Fatalf("A refused event %d: %s", i, msg)
		}
		start := time.Now()
		select {
		case got := <-arrived:
			if got.ID != ev.ID {
				t.Fatalf("B delivered %s, want event %d (%s)", got.ID, i, ev.ID)
			}
			slowest = max(slowest, time.Since(start))
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d published on A did not reach B's subscriber within 5 s (B polls the log only every 30 s: NOTIFY did not drive delivery)", i)
		}
	}
	t.Logf("20 events from A to B's subscriber, slowest %v after A's OK", slowest)
}
