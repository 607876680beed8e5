package hub

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// canRead is the per-event read gate, applied to every stored result and to
// every live delivery. A stored row is judged by its columns (the channel
// recorded when it was stored), undecoded unless its kind's gate needs its
// p tags.
func (h *Hub) canRead(c *relay.Conn, ev *store.Stored) bool {
	reader := c.PubKey()
	if reader == "" {
		return false
	}
	gate := kinds.Classify(ev.Kind).Gate
	return h.reads(c, h.snapshotView(), reader, ev, gate, h.channelGated(ev, gate))
}

// channelGated is the channel that gates ev, whose kind's gate is gate: ""
// for the kinds gated by author or recipient, and for events of no channel.
func (h *Hub) channelGated(ev *store.Stored, gate kinds.Gate) string {
	if gate == kinds.AuthorOnly || gate == kinds.RecipientOnly {
		return ""
	}
	return ev.ChannelOf(h.storedChannel)
}

// reads is the read rule for reader on connection c in view v, of an event
// whose kind's gate is gate and whose channel (for a channel-gated kind) is
// ch: canRead once the event's part is found.
func (h *Hub) reads(c *relay.Conn, v *view, reader string, ev *store.Stored, gate kinds.Gate, ch string) bool {
	if why := h.standing(c, v); why != "" {
		h.cutOff(c, why)
		return false
	}
	as := h.readsAs(v, reader)
	switch gate {
	case kinds.AuthorOnly:
		return ev.PubKey == reader || v.keyOf(ev.PubKey) == as
	case kinds.RecipientOnly:
		return ev.PubKey == reader || ev.Tagged("p", reader)
	}
	return ch == "" || v.canRead(ch, as)
}

// readsAs is the member reader reads as now: a live paired device reads as
// its owner (actsAs, by the hub's clock).
func (h *Hub) readsAs(v *view, reader string) string {
	as, _ := actsAs(v, reader, h.now().Unix()) // the view never fails
	return as
}

// storedChannel is the channel recorded for a stored event (cached: an
// event's channel never changes). Unknown ids are not cached: they may arrive
// later.
func (h *Hub) storedChannel(id string) (string, bool) {
	if ch, ok := h.targets.get(id); ok {
		return ch, true
	}
	ch, stored := store.StoredChannel(h.Store.Reader(), id)
	if stored {
		h.targets.put(id, ch)
	}
	return ch, stored
}

// readScope narrows c's stored reads to what canRead allows: the channels
// the member the reader reads as may not read are hidden, author-only kinds
// are limited to that member's keys and recipient-only kinds to the reader's
// own. Scopes are kept per view (a view never changes once published), so a
// REQ does not walk every channel.
func (h *Hub) readScope(c *relay.Conn) *store.Scope {
	reader := c.PubKey()
	v := h.snapshotView()
	as := h.readsAs(v, reader)
	key := reader + "/" + as
	if sc := h.scopes.get(v, key); sc != nil {
		return sc
	}
	sc := &store.Scope{Reader: reader, AuthorOnly: h.gated[kinds.AuthorOnly], RecipientOnly: h.gated[kinds.RecipientOnly]}
	if keys := v.keysOf(as); len(keys) > 1 || keys[0] != reader {
		sc.Authors = append(keys, reader)
		slices.Sort(sc.Authors)
		sc.Authors = slices.Compact(sc.Authors)
	}
	for id := range v.channels {
		if !v.canRead(id, as) {
			sc.Hidden = append(sc.Hidden, id)
		}
	}
	slices.Sort(sc.Hidden)
	h.scopes.put(v, key, sc)
	return sc
}

// scopeCache holds the read scopes computed for one view, by reader.
type scopeCache struct {
	mu sync.Mutex
	v  *view
	m  map[string]*store.Scope
}

func (c *scopeCache) get(v *view, reader string) *store.Scope {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.v != v {
		return nil
	}
	return c.m[reader]
}

func (c *scopeCache) put(v *view, reader string, sc *store.Scope) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.v != v {
		c.v, c.m = v, map[string]*store.Scope{}
	}
	if len(c.m) < 4096 {
		c.m[reader] = sc
	}
}

// rejectFilter refuses a REQ or COUNT whose filter targets something the
// reader may not read; any other filter is answered, narrowed to what the
// reader may read by readScope (spec/auth.md, "Reading").
func (h *Hub) rejectFilter(_ context.Context, c *relay.Conn, f nostr.Filter) string {
	reader := c.PubKey()
	v := h.snapshotView()
	if why := h.standing(c, v); why != "" {
		h.cutOff(c, why)
		return why
	}
	as := h.readsAs(v, reader)
	for _, ch := range f.Tags["h"] {
		if !v.canRead(ch, as) {
			return "restricted: #h names channel " + ch + ", which you are not a member of"
		}
	}
	if len(f.Tags["d"]) > 0 && onlyKinds(f.Kinds, kinds.GroupMetadata, kinds.GroupAdmins, kinds.GroupMembers) {
		for _, ch := range f.Tags["d"] {
			if !v.canRead(ch, as) {
				return "restricted: #d names channel " + ch + ", which you are not a member of"
			}
		}
	}
	for _, k := range f.Kinds {
		switch kinds.Classify(k).Gate {
		case kinds.AuthorOnly:
			if slices.ContainsFunc(f.Authors, func(pk string) bool { return pk != reader && v.keyOf(pk) != as }) {
				return fmt.Sprintf("restricted: kind %d is readable by its author only (and a member's paired devices); ask for authors:[your pubkey]", k)
			}
		case kinds.RecipientOnly:
			authors, ps := f.Authors, f.Tags["p"]
			excluded := (authors != nil && !slices.Contains(authors, reader)) || (ps != nil && !slices.Contains(ps, reader))
			if excluded && !slices.Contains(authors, reader) && !slices.Contains(ps, reader) {
				return fmt.Sprintf("restricted: kind %d is readable by its author and its p-tagged recipients only; ask for #p:[your pubkey] or authors:[your pubkey]", k)
			}
		}
	}
	// ids naming an event the reader may not read: the relay refuses those
	// from its one read of the named events (namedEvents), by canRead.
	return ""
}

// onlyKinds reports whether ks is a non-empty list of allowed kinds.
func onlyKinds(ks []int, allowed ...int) bool {
	for _, k := range ks {
		if !slices.Contains(allowed, k) {
			return false
		}
	}
	return len(ks) > 0
}

// channelCache is a bounded map of event id → channel in two generations:
// when the current one holds max/2 entries it becomes the old one and the
// oldest generation is dropped, so an entry survives at least max/2 later
// puts (a just-committed event is still cached when it is fanned out).
type channelCache struct {
	mu       sync.Mutex
	max      int
	cur, old map[string]string
}

func newChannelCache(max int) *channelCache {
	return &channelCache{max: max, cur: map[string]string{}}
}

func (c *channelCache) get(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.cur[id]; ok {
		return ch, true
	}
	ch, ok := c.old[id]
	if ok {
		c.putLocked(id, ch)
	}
	return ch, ok
}

func (c *channelCache) put(id, ch string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(id, ch)
}

func (c *channelCache) putLocked(id, ch string) {
	if len(c.cur) >= c.max/2 {
		c.old, c.cur = c.cur, make(map[string]string, c.max/2)
	}
	c.cur[id] = ch
}
