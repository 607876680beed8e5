package client

import (
	"context"

	"github.com/nbd-wtf/go-nostr"
)

// Follow subscribes to filters and hands fn each event: the stored ones
// first (oldest first), then live ones as the hub stores them, each once,
// across reconnects. Every follow ends by one rule:
//
//   - fn reports done: Follow returns fn's error (nil when it gave none);
//   - ctx ends (an interrupt, a deadline): ctx.Err();
//   - the hub closes the subscription: its refusal (a *RefusedError);
//   - the connection is gone for good (reconnecting cannot succeed): the
//     client's error.
//
// A dropped connection alone never ends a follow.
func (c *Client) Follow(ctx context.Context, fn func(ev nostr.Event) (done bool, err error), filters ...nostr.Filter) error {
	sub, err := c.Subscribe(ctx, filters...)
	if err != nil {
		return err
	}
	return c.FollowSub(ctx, sub, fn)
}

// FollowSub is Follow over a subscription already open (so its REQ is on
// the wire before the caller sends what the answers depend on); it closes
// sub when it returns.
func (c *Client) FollowSub(ctx context.Context, sub *Subscription, fn func(ev nostr.Event) (done bool, err error)) error {
	defer sub.Close()
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				if err := sub.Err(); err != nil {
					return err
				}
				return c.Err()
			}
			if done, err := fn(ev); done || err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-c.Done():
			return c.Err()
		}
	}
}
