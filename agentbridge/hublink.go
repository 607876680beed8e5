package agentbridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// hubLink is the agent's connection to the hub: dialled as the agent's key
// with the owner's attestation, replaced when it is lost. Every method
// takes mu; the connection loop (runner.run) is the only one that dials
// and sets it, everyone else publishes through it.
type hubLink struct {
	target Target
	keys   identity.Keys
	tag    nostr.Tag
	dial   Dialer
	log    *slog.Logger

	mu  sync.Mutex
	hub HubConn       // nil while reconnecting
	up  chan struct{} // closed while connected; replaced on disconnect
}

func newHubLink(target Target, keys identity.Keys, tag nostr.Tag, dial Dialer, log *slog.Logger) *hubLink {
	return &hubLink{target: target, keys: keys, tag: tag, dial: dial, log: log, up: make(chan struct{})}
}

// connectFirst makes the first connection; failures here are startup errors.
func (l *hubLink) connectFirst(ctx context.Context) error {
	h, err := l.dialOnce(ctx)
	if errors.Is(err, ErrAuthRefused) {
		return fmt.Errorf("the hub at %s refused AUTH for %s: %w (is the owner a member, and the attestation not revoked?)", l.target.URLs, l.keys.Npub(), err)
	}
	if err != nil {
		return fmt.Errorf("hub %s unreachable: %w (is it running? check hub = in the config)", strings.Join(l.target.URLs, ", "), err)
	}
	l.set(h)
	return nil
}

// dialOnce dials the hub once, within 15 s.
func (l *hubLink) dialOnce(ctx context.Context) (HubConn, error) {
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return l.dial(dctx, l.target, l.keys, l.tag)
}

// set makes h the connection (nil: it is gone, publishers wait).
func (l *hubLink) set(h HubConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hub = h
	if h != nil {
		close(l.up)
	} else {
		l.up = make(chan struct{})
	}
}

// current is the live connection, or nil while reconnecting.
func (l *hubLink) current() HubConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hub
}

// waitUp is the connection and a channel closed once there is one.
func (l *hubLink) waitUp() (HubConn, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hub, l.up
}

// publishOnce sends ev on the current connection (signing it as the agent).
func (l *hubLink) publishOnce(ctx context.Context, ev *nostr.Event) error {
	h := l.current()
	if h == nil {
		return errors.New("not connected to the hub")
	}
	return h.Publish(ctx, ev)
}

// publish sends ev, waiting for the connection to come back, until ctx ends
// or the hub refuses it for a reason that retrying will not change.
func (l *hubLink) publish(ctx context.Context, ev *nostr.Event) error {
	for {
		h, up := l.waitUp()
		if h != nil {
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := h.Publish(pctx, ev)
			cancel()
			if err == nil || refusedForGood(err) {
				return err
			}
			l.log.Warn("publish failed, retrying", "kind", ev.Kind, "err", err)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-up:
		}
	}
}
