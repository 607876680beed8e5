package agentbridge

import (
	"context"
	"sync"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Bounds of the context cache: past either it starts afresh (the next
// contexts load from the hub again).
const (
	cacheMaxEvents = 20000
	cacheMaxBytes  = 8 << 20
)

// ctxCache is the chat model that prompt contexts are built from, kept
// current one event at a time from the bridge's live subscription to its
// channels (messages, edits, deletes), so a prompt's context costs no hub
// query once its thread or channel is held (spec/agents.md, "Context").
// What it holds is known to be whole only for a thread loaded once
// (threads) and for a channel's top-level rows from a time on (from); a
// context outside that loads from the hub into it first.
type ctxCache struct {
	mu       sync.Mutex
	me       string
	model    *chat.Model
	threads  map[string]bool  // roots whose whole thread is held
	from     map[string]int64 // channel -> ms from which every row is held
	followed map[string]bool  // channels the live subscription delivers
	events   int
	bytes    int
}

func newCtxCache(me string) *ctxCache {
	c := &ctxCache{me: me}
	c.reset()
	return c
}

// reset forgets every row (the caller holds mu, or owns c). Followed
// channels are whole again from now on.
func (c *ctxCache) reset() {
	c.model, c.threads, c.from, c.events, c.bytes = chat.New(c.me), map[string]bool{}, map[string]int64{}, 0, 0
	now := time.Now().Add(-time.Second).UnixMilli()
	for ch := range c.followed {
		c.from[ch] = now
	}
}

// apply adds one event of the live subscription.
func (c *ctxCache) apply(ev *nostr.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.events >= cacheMaxEvents || c.bytes >= cacheMaxBytes {
		c.reset()
	}
	c.model.Apply(ev)
	c.events++
	c.bytes += len(ev.Content)
}

// follow records that the live subscription delivers every event of
// channels from at on; dropped says the connection changed (what came
// before may be missing), so the cache starts afresh.
func (c *ctxCache) follow(channels []string, at time.Time, dropped bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if dropped {
		c.followed = map[string]bool{}
		c.reset()
	}
	for _, ch := range channels {
		if !c.followed[ch] {
			c.followed[ch] = true
			c.from[ch] = at.Add(-time.Second).UnixMilli()
		}
	}
}

// ensure makes the cache hold what the context of t needs: the whole
// thread of t, or the channel's top-level rows after seen (the newest
// contextScan when seen is unset). The caller holds mu.
func (c *ctxCache) ensure(ctx context.Context, cl *client.Client, t *Mention, thread bool, seen SeenMark) error {
	if thread {
		if c.threads[t.Root] {
			return nil
		}
		if _, err := cl.LoadThread(ctx, c.model, t.Channel, t.Root); err != nil {
			return err
		}
		c.threads[t.Root] = c.followed[t.Channel]
		return nil
	}
	from, held := c.from[t.Channel]
	if held && seen.At >= from {
		return nil
	}
	f := nostr.Filter{Kinds: client.TimelineKinds(), Tags: nostr.TagMap{"h": {t.Channel}}, Limit: contextScan}
	if seen.At > 0 {
		since := nostr.Timestamp(seen.At / 1000)
		f.Since = &since
	}
	evs, err := cl.LoadRows(ctx, c.model, f)
	if err != nil || !c.followed[t.Channel] {
		return err
	}
	whole := seen.At
	if seen.At == 0 && len(evs) >= contextScan {
		whole = chat.Millis(&evs[0])
		for i := range evs {
			whole = min(whole, chat.Millis(&evs[i]))
		}
	}
	if !held || whole < from {
		c.from[t.Channel] = whole
	}
	return nil
}

// cachedKinds are the kinds the bridge's subscription brings for the
// cache: the rows and what changes their text.
func cachedKinds() []int { return []int{kinds.Message, kinds.Edit, kinds.DeleteInChannel} }
