package client

import (
	"context"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// A new version of a definition applied this very second is newer than
// it, and never dated in the future (the runner passes over a trigger
// older than the version it runs: a message sent right after enable).
func TestRepublishedNowIsNeverInTheFuture(t *testing.T) {
	w := Workflow{Channel: "ops", Name: "loop", Runner: "r", Source: "name: loop", CreatedAt: int64(nostr.Now())}
	ev, err := w.RepublishedNow(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if now := nostr.Now(); ev.CreatedAt <= nostr.Timestamp(w.CreatedAt) || ev.CreatedAt > now {
		t.Fatalf("version dated %d: the old one is %d, now is %d", ev.CreatedAt, w.CreatedAt, now)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.CreatedAt = int64(nostr.Now()) + 60
	if _, err := w.RepublishedNow(ctx, true); err != context.Canceled {
		t.Fatalf("a cancelled wait: %v", err)
	}
}
