package pairing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// Link carries one session's events over one connected relay: a
// subscription to the events addressed to the session's key, and publishing
// with retries while the peer is not listening yet.
type Link struct {
	relay *nostr.Relay
	sub   *nostr.Subscription
}

// ErrRelay wraps failures to subscribe or publish on the pairing relay.
var ErrRelay = errors.New("pairing relay")

// Listen subscribes to {"kinds":[24134],"#p":[pub]} on r and waits until
// the relay confirms the subscription (EOSE), so that events sent to pub
// from then on are delivered.
func Listen(ctx context.Context, r *nostr.Relay, pub string) (*Link, error) {
	sub, err := r.Subscribe(ctx, nostr.Filters{{Kinds: []int{Kind}, Tags: nostr.TagMap{"p": {pub}}}})
	if err != nil {
		return nil, fmt.Errorf("%w: subscribing: %v", ErrRelay, err)
	}
	select {
	case <-sub.EndOfStoredEvents:
		return &Link{relay: r, sub: sub}, nil
	case reason := <-sub.ClosedReason:
		return nil, fmt.Errorf("%w: subscription refused: %s", ErrRelay, reason)
	case <-r.Context().Done():
		return nil, fmt.Errorf("%w: connection lost", ErrRelay)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Events delivers the events addressed to the session's key.
func (l *Link) Events() <-chan *nostr.Event { return l.sub.Events }

// Lost is closed when the relay connection ends.
func (l *Link) Lost() <-chan struct{} { return l.relay.Context().Done() }

// Publish sends ev, retrying every 200 ms while the relay answers that
// nobody listens for its p tag (the peer has not subscribed yet), until
// ctx ends. Any other refusal is returned at once.
func (l *Link) Publish(ctx context.Context, ev *nostr.Event) error {
	for {
		err := l.relay.Publish(ctx, *ev)
		if err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), "no live subscriber") {
			return fmt.Errorf("%w: %v", ErrRelay, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: the other device is not listening: %v", ErrRelay, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Close ends the subscription.
func (l *Link) Close() { l.sub.Unsub() }
