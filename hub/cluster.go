package hub

import (
	"context"
	"fmt"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// The log the hub opens is the one the relay writes to.
var _ relay.Log = store.Log(nil)

// cluster follows a log that other hive instances write too (PostgreSQL):
// what they commit reaches this instance's live subscribers, their state
// changes reach its view, and their removals and revocations close its
// connections, within the store's notification latency (at worst its poll
// interval). Ephemeral events go the other way too: what this instance's
// clients send reaches the other instances' subscribers.
type cluster struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the follower and the announcer stopped
	out    chan *nostr.Event
}

// followFrom is the sequence number a hub opening st follows the log from:
// the last one committed before it loads its state (-1: not a shared log).
func followFrom(st store.Log) (int64, error) {
	f, ok := st.(store.Follower)
	if !ok {
		return -1, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seq, err := f.LastSeq(ctx)
	if err != nil {
		return -1, fmt.Errorf("reading the shared log's last sequence number: %w", err)
	}
	return seq, nil
}

// startCluster follows a shared log from sequence number after; nil for a
// log no other instance writes.
func startCluster(h *Hub, after int64) *cluster {
	f, ok := h.Store.(store.Follower)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &cluster{cancel: cancel, done: make(chan struct{}), out: make(chan *nostr.Event, 1024)}
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		f.Follow(ctx, after, func(_ int64, st store.Stored, local bool) {
			if !local {
				h.foreign(st.Event)
			}
		})
	}()
	go func() {
		defer close(c.done)
		c.announce(ctx, f, h)
		<-followed
	}()
	h.Relay.Hooks.Relayed = append(h.Relay.Hooks.Relayed, c.relayed)
	return c
}

// relayed queues an ephemeral event for the other instances without
// blocking the connection that sent it; a full queue drops it (ephemeral
// events are best effort).
func (c *cluster) relayed(ev *nostr.Event) {
	select {
	case c.out <- ev:
	default:
	}
}

func (c *cluster) announce(ctx context.Context, f store.Follower, h *Hub) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-c.out:
			actx, cancel := context.WithTimeout(ctx, 5*time.Second)
			if err := f.Announce(actx, ev); err != nil && ctx.Err() == nil {
				h.log.Warn("an ephemeral event did not reach the other instances", "kind", ev.Kind, "err", err)
			}
			cancel()
		}
	}
}

func (c *cluster) stop() {
	if c == nil {
		return
	}
	c.cancel()
	<-c.done
}

// foreign takes in an event another instance committed: the view first (so
// the read check of its fan-out sees the state it made), then kicks, then
// delivery to this instance's subscribers.
func (h *Hub) foreign(ev *nostr.Event) {
	if kinds.Classify(ev.Kind).IsState() || ev.Kind == kinds.Deletion {
		if err := h.reloadInOrder(); err != nil {
			h.log.Warn("reloading hub state after another instance's commit failed", "err", err)
		}
	}
	evs := []*nostr.Event{ev}
	h.rememberChannels(evs)
	h.afterCommit(evs)
	h.Relay.Broadcast(ev)
}

// reloadInOrder loads the view on the store's writer, between two of its
// commits: this instance's own view changes are published there too, so a
// reload can neither miss one nor overwrite it with older state.
func (h *Hub) reloadInOrder() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.Store.Exec(ctx, func(tx store.WriteTx) error { return h.reloadFrom(tx) })
}
