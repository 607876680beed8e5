// Package client connects to a hive hub as one key: it answers the NIP-42
// challenge (with an owner's NIP-OA tag for agents), publishes and queries.
package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// ErrRefused is returned when the hub refuses AUTH or an event.
var ErrRefused = errors.New("refused by the hub")

// Client is an authenticated connection to a hub.
type Client struct {
	Relay *nostr.Relay
	Keys  identity.Keys
}

// Dial connects to url and authenticates as keys. authTag, if not nil, is the
// owner's NIP-OA tag that admits an agent or device key.
func Dial(ctx context.Context, url string, keys identity.Keys, authTag nostr.Tag) (*Client, error) {
	r, err := nostr.RelayConnect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", url, err)
	}
	c := &Client{Relay: r, Keys: keys}
	sign := func(ev *nostr.Event) error {
		if authTag != nil {
			ev.Tags = append(ev.Tags, authTag)
		}
		return ev.Sign(keys.SecretHex)
	}
	// The challenge arrives right after the upgrade; retry while it is in flight.
	var authErr error
	for i := 0; i < 20; i++ {
		if authErr = r.Auth(ctx, sign); authErr == nil {
			return c, nil
		}
		if !strings.Contains(authErr.Error(), "challenge") {
			break
		}
		select {
		case <-ctx.Done():
			r.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	r.Close()
	return nil, fmt.Errorf("%w: AUTH as %s: %v", ErrRefused, keys.Npub(), authErr)
}

// Close closes the connection.
func (c *Client) Close() { c.Relay.Close() }

// Publish signs ev as the client's key if it is unsigned, sends it and waits for OK.
func (c *Client) Publish(ctx context.Context, ev *nostr.Event) error {
	if ev.Sig == "" {
		if ev.Tags == nil {
			ev.Tags = nostr.Tags{}
		}
		if err := ev.Sign(c.Keys.SecretHex); err != nil {
			return err
		}
	}
	if err := c.Relay.Publish(ctx, *ev); err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	return nil
}

// Query returns the stored events matching f, or the hub's CLOSED reason.
func (c *Client) Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error) {
	sub, err := c.Relay.Subscribe(ctx, nostr.Filters{f})
	if err != nil {
		return nil, err
	}
	defer sub.Unsub()
	var out []*nostr.Event
	for {
		select {
		case ev := <-sub.Events:
			out = append(out, ev)
		case <-sub.EndOfStoredEvents:
			for {
				select {
				case ev := <-sub.Events:
					out = append(out, ev)
				default:
					return out, nil
				}
			}
		case reason := <-sub.ClosedReason:
			return nil, fmt.Errorf("%w: %s", ErrRefused, reason)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
