package hub

import (
	"context"
	"fmt"
	"sync"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/relay/store"
	"github.com/nbd-wtf/go-nostr"
)

// canRead is the per-event read gate, applied to every stored result and to
// every live delivery.
func (h *Hub) canRead(c *relay.Conn, ev *nostr.Event) bool {
	reader := c.PubKey()
	if reader == "" {
		return false
	}
	switch kinds.Classify(ev.Kind).Gate {
	case kinds.AuthorOnly:
		return ev.PubKey == reader
	case kinds.RecipientOnly:
		return ev.PubKey == reader || ev.Tags.ContainsAny("p", []string{reader})
	}
	ch := h.channelOf(ev)
	return ch == "" || h.snapshotView().canRead(ch, reader)
}

// channelOf is the channel an event belongs to (store.ChannelOf: its h tag,
// the d tag of a channel snapshot, or for reactions and deletions their
// target's channel), the same rule the store records at write time.
func (h *Hub) channelOf(ev *nostr.Event) string {
	return store.ChannelOf(ev, h.channelOfID)
}

// channelOfID is the channel recorded for a stored event (cached: an event's
// channel never changes). Unknown ids are not cached: they may arrive later.
func (h *Hub) channelOfID(id string) string {
	if ch, ok := h.targets.get(id); ok {
		return ch
	}
	ch, stored := store.StoredChannel(h.Store.ReadDB(), id)
	if stored {
		h.targets.put(id, ch)
	}
	return ch
}

// readScope narrows c's stored reads to what canRead allows: the channels
// the reader may not read are hidden, author-only and recipient-only kinds
// are limited to the reader's own.
func (h *Hub) readScope(c *relay.Conn) *store.Scope {
	reader := c.PubKey()
	sc := &store.Scope{Reader: reader, AuthorOnly: h.gated[kinds.AuthorOnly], RecipientOnly: h.gated[kinds.RecipientOnly]}
	v := h.snapshotView()
	for id := range v.channels {
		if !v.canRead(id, reader) {
			sc.Hidden = append(sc.Hidden, id)
		}
	}
	return sc
}

// storedEvent loads an event by id from the read pool, or nil.
func (h *Hub) storedEvent(id string) *nostr.Event {
	var raw string
	if err := h.Store.ReadDB().QueryRow(`SELECT raw FROM events WHERE id = ?`, id).Scan(&raw); err != nil {
		return nil
	}
	ev := &nostr.Event{}
	if ev.UnmarshalJSON([]byte(raw)) != nil {
		return nil
	}
	return ev
}

// rejectFilter refuses a REQ or COUNT that could match events the reader may
// not see, instead of returning a silently filtered result that looks complete.
func (h *Hub) rejectFilter(_ context.Context, c *relay.Conn, f nostr.Filter) string {
	reader := c.PubKey()
	if len(f.IDs) > 0 {
		// Named events can be judged one by one: refuse if any stored one is
		// unreadable, so the answer is never a silently shortened list.
		for _, id := range f.IDs {
			if ev := h.storedEvent(id); ev != nil && !h.canRead(c, ev) {
				return "restricted: event " + id + " is not readable by you"
			}
		}
		return ""
	}
	gates := map[kinds.Gate][]int{}
	if f.Kinds == nil {
		gates[kinds.ChannelMembers] = nil
		gates[kinds.AuthorOnly] = nil
		gates[kinds.RecipientOnly] = nil
	}
	for _, k := range f.Kinds {
		g := kinds.Classify(k).Gate
		gates[g] = append(gates[g], k)
	}
	only := func(vals []string) bool {
		for _, v := range vals {
			if v != reader {
				return false
			}
		}
		return len(vals) > 0
	}
	if _, ok := gates[kinds.AuthorOnly]; ok && !only(f.Authors) {
		return fmt.Sprintf("restricted: kinds %v are readable by their author only; add authors:[your pubkey]", orAll(gates[kinds.AuthorOnly]))
	}
	if _, ok := gates[kinds.RecipientOnly]; ok && !only(f.Tags["p"]) && !only(f.Authors) {
		return fmt.Sprintf("restricted: kinds %v are readable by their p-tagged recipient only; add #p:[your pubkey]", orAll(gates[kinds.RecipientOnly]))
	}
	if _, ok := gates[kinds.ChannelMembers]; ok {
		if ch := h.unreadableChannel(f, reader, gates[kinds.ChannelMembers]); ch != "" {
			return "restricted: " + ch
		}
	}
	return ""
}

func orAll(ks []int) any {
	if ks == nil {
		return "(all)"
	}
	return ks
}

// unreadableChannel explains why f could reach a channel the reader cannot
// read, or returns "".
func (h *Hub) unreadableChannel(f nostr.Filter, reader string, ks []int) string {
	v := h.snapshotView()
	check := func(chs []string) string {
		for _, ch := range chs {
			if !v.canRead(ch, reader) {
				return "not a member of channel " + ch
			}
		}
		return ""
	}
	switch {
	case len(f.Tags["h"]) > 0:
		return check(f.Tags["h"])
	case len(f.Tags["d"]) > 0 && allIn(ks, kinds.GroupMetadata, kinds.GroupAdmins, kinds.GroupMembers):
		return check(f.Tags["d"])
	case len(f.Tags["p"]) == 1 && f.Tags["p"][0] == reader && allIn(ks, kinds.GroupAdmins, kinds.GroupMembers):
		return "" // rosters that list the reader: the reader is a member of each
	case len(f.IDs) > 0 || len(f.Tags["e"]) > 0:
		ids := append(append([]string{}, f.IDs...), f.Tags["e"]...)
		var chs []string
		for _, id := range ids {
			if ch := h.channelOfID(id); ch != "" {
				chs = append(chs, ch)
			}
		}
		if msg := check(chs); msg != "" {
			return "an event you asked for is in a channel you are not in (" + msg + ")"
		}
		return ""
	}
	for id := range v.channels {
		if !v.canRead(id, reader) {
			return "this filter could match events of channels you are not in; name your channels with #h (or use ids/#e)"
		}
	}
	return ""
}

func allIn(ks []int, allowed ...int) bool {
	if ks == nil {
		return false
	}
	for _, k := range ks {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			return false
		}
	}
	return true
}

// channelCache is a small bounded map of event id → channel.
type channelCache struct {
	mu  sync.Mutex
	max int
	m   map[string]string
}

func newChannelCache(max int) *channelCache {
	return &channelCache{max: max, m: make(map[string]string, max)}
}

func (c *channelCache) get(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.m[id]
	return ch, ok
}

func (c *channelCache) put(id, ch string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for k := range c.m { // drop an arbitrary entry
			delete(c.m, k)
			break
		}
	}
	c.m[id] = ch
}
