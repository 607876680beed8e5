package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
)

// A live subscription that has delivered an event dated in the future (an
// author's clock ahead, within the hub's max_future_skew) still gets, after
// a reconnect, a message stored while it was disconnected: the resubscribe's
// since counts such an event from when it arrived, not from its created_at
// (before the fix: since = that created_at minus the margin, and every
// message sent during the drop was skipped for good).
func TestResubscribeAfterFutureEventKeepsMissed(t *testing.T) {
	th, admin := startHubAdmin(t)
	ctx := ctxT(t, 60*time.Second)
	// The reader reconnects 2 to 4 s after a drop, long after the message
	// below is stored.
	_, sub := th.liveReader(t, ctx, admin, client.Options{MinBackoff: 4 * time.Second}, nil)
	ahead := client.Message("c", "dated five minutes ahead")
	ahead.CreatedAt = nostr.Now() + 300
	mustPublish(t, ctx, admin, ahead)
	if ev := mustNext(t, sub, 30*time.Second); ev.Content != ahead.Content {
		t.Fatalf("first delivery %q", ev.Content)
	}
	if th.kickAll() == 0 {
		t.Fatal("nothing kicked")
	}
	missed := mustPublish(t, ctx, admin, client.Message("c", "sent while the reader was away"))
	if ev := mustNext(t, sub, 30*time.Second); ev.ID != missed.ID {
		t.Fatalf("after the reconnect: %q, not the message sent during the drop", ev.Content)
	}
}

// After a reconnect, a live subscription still gets a new event dated well
// before the newest one it delivered: an author whose clock is a minute
// slow, or a message signed offline and sent later. The resubscription's
// since (newest seen minus the margin) bounds the stored events it asks
// for again, not the live ones (before the fix the hub matched every live
// event against that since and this one never arrived).
func TestResubscribeKeepsLiveEventsDatedBehind(t *testing.T) {
	th, admin := startHubAdmin(t)
	ctx := ctxT(t, 60*time.Second)
	reader, sub := th.liveReader(t, ctx, admin, client.Options{MinBackoff: 100 * time.Millisecond}, nil)
	now := mustPublish(t, ctx, admin, client.Message("c", "on time"))
	if ev := mustNext(t, sub, 30*time.Second); ev.ID != now.ID {
		t.Fatalf("first delivery %q", ev.Content)
	}
	reconnect(t, th, reader, admin, sub)
	behind := client.Message("c", "dated a minute behind")
	behind.CreatedAt = nostr.Now() - 60
	sent := mustPublish(t, ctx, admin, behind)
	if ev := mustNext(t, sub, 30*time.Second); ev.ID != sent.ID {
		t.Fatalf("after the reconnect: %q, not the message dated behind", ev.Content)
	}
}

// A live subscription that starts from a since (hive tail --follow, hive
// chat, the bridge: "from now on") still gets a new message dated before
// it, first and after a reconnect: the hub matches live events against the
// filter's since too, so a member whose clock runs a minute slow was never
// heard live.
func TestLiveSinceKeepsEventsDatedBehind(t *testing.T) {
	th, admin := startHubAdmin(t)
	ctx := ctxT(t, 60*time.Second)
	since := nostr.Now() - 5
	reader, sub := th.liveReader(t, ctx, admin, client.Options{MinBackoff: 100 * time.Millisecond}, &since)
	for round, behind := range []nostr.Timestamp{60, 120} {
		if round == 1 {
			reconnect(t, th, reader, admin, sub)
		}
		ev := client.Message("c", fmt.Sprintf("dated %d s behind", behind))
		ev.CreatedAt = nostr.Now() - behind
		sent := mustPublish(t, ctx, admin, ev)
		if got := mustNext(t, sub, 15*time.Second); got.ID != sent.ID {
			t.Fatalf("round %d: %q, not the message dated %d s behind", round, got.Content, behind)
		}
	}
}

// reconnect cuts every connection of th and waits until reader is back with
// sub's resubscription in place at the hub: a probe message admin posts in
// channel c arrives on sub (stored or live, the hub has taken the REQ).
func reconnect(t *testing.T, th *testHub, reader, admin *client.Client, sub *client.Subscription) {
	t.Helper()
	if th.kickAll() == 0 {
		t.Fatal("nothing kicked")
	}
	for deadline := time.Now().Add(20 * time.Second); reader.URL() == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the reader did not reconnect")
		}
	}
	probe := mustPublish(t, ctxT(t, 30*time.Second), admin, client.Message("c", "probe after the reconnect"))
	if ev := mustNext(t, sub, 30*time.Second); ev.ID != probe.ID {
		t.Fatalf("after the reconnect: %q, not the probe", ev.Content)
	}
}
