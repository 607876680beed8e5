package relay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

func (c *Conn) handle(data []byte) {
	m, err := parseClientMessage(data)
	if err != nil {
		if m.subID != "" && (m.label == "REQ" || m.label == "COUNT") {
			c.reply(closedMsg(m.subID, "invalid: "+err.Error()))
			return
		}
		c.reply(notice("invalid: " + err.Error()))
		return
	}
	switch m.label {
	case "EVENT":
		c.handleEvent(m.event)
	case "REQ":
		c.handleReq(m.subID, m.filters)
	case "COUNT":
		c.handleCount(m.subID, m.filters)
	case "CLOSE":
		c.handleClose(m.subID)
	case "AUTH":
		c.handleAuth(m.event)
	}
}

func (c *Conn) needsAuth() bool {
	return c.relay.cfg.RequireAuth && c.PubKey() == ""
}

func (c *Conn) handleEvent(ev *nostr.Event) {
	r := c.relay
	start := time.Now()
	r.metrics().EventIn(ev.Kind)
	// Before AUTH an EVENT is refused unread: no hashing, no signature check
	// (a guest's join or leave request excepted: guest.go).
	if c.needsAuth() {
		if !c.guestEvent(ev, start) {
			c.reply(c.okFor(ev, start, false, c.notAuthed("publishing")))
		}
		return
	}
	if isRequest(ev.Kind) && r.Hooks.Join != nil { // NIP-43 (guest.go)
		c.request(ev, start)
		return
	}
	k := kinds.Classify(ev.Kind)
	if k.Storage == kinds.NeverStored {
		c.reply(c.okFor(ev, start, false, fmt.Sprintf("invalid: kind %d belongs in an AUTH message, not EVENT", ev.Kind)))
		return
	}
	if msg := r.validate(ev); msg != "" {
		c.reply(c.okFor(ev, start, false, msg))
		return
	}
	for _, fn := range r.Hooks.RejectEvent {
		if msg := fn(c.ctx, c, ev); msg != "" {
			c.reply(c.okFor(ev, start, false, msg))
			return
		}
	}
	if k.Storage == kinds.Ephemeral {
		c.reply(c.okFor(ev, start, true, ""))
		r.Broadcast(ev)
		for _, fn := range r.Hooks.Relayed {
			fn(ev)
		}
		return
	}
	// Bound the events this connection has waiting for commit; when full, stop
	// reading until one commits, which pushes back on the client through TCP.
	select {
	case c.inflight <- struct{}{}:
	case <-c.ctx.Done():
		return
	}
	err := r.store.PublishAsync(c.ctx, ev, func(derived []*nostr.Event, err error) {
		<-c.inflight
		switch {
		case errors.Is(err, store.ErrDuplicate):
			c.send(c.okFor(ev, start, true, "duplicate: already have this event"))
			return
		case err != nil:
			c.send(c.okFor(ev, start, false, prefixed(err)))
			return
		}
		for _, fn := range r.Hooks.Committed {
			fn(ev, derived)
		}
		// Into the fan-out before the OK: a client that REQs after its OK
		// finds the event queued ahead of its subscription's end marker.
		r.Broadcast(ev)
		for _, d := range derived {
			r.Broadcast(d)
		}
		c.send(c.okFor(ev, start, true, ""))
	})
	if err != nil {
		<-c.inflight
		c.reply(c.okFor(ev, start, false, prefixed(err)))
	}
}

// prefixed makes sure an error sent to a client carries a NIP-01 prefix.
func prefixed(err error) string {
	msg := err.Error()
	for _, p := range []string{"invalid:", "restricted:", "blocked:", "duplicate:", "rate-limited:", "error:", "auth-required:", "pow:", "unsupported:"} {
		if strings.HasPrefix(msg, p) {
			return msg
		}
	}
	if errors.Is(err, context.Canceled) {
		return "error: connection closed before the event was stored"
	}
	return "error: " + msg
}

// checkFilters applies the hub's limits and policies to a REQ or COUNT.
func (c *Conn) checkFilters(filters []nostr.Filter) string {
	r := c.relay
	if c.needsAuth() {
		return c.notAuthed("reading")
	}
	if len(filters) > r.cfg.MaxFilters {
		return fmt.Sprintf("invalid: at most %d filters per request", r.cfg.MaxFilters)
	}
	_, maxLimit := r.store.Limits()
	for i, f := range filters {
		n := len(f.IDs) + len(f.Authors) + len(f.Kinds)
		for _, vs := range f.Tags {
			n += len(vs)
		}
		if n > r.cfg.MaxFilterValues {
			return fmt.Sprintf("invalid: filter %d lists %d values, above max_filter_values %d; split it", i, n, r.cfg.MaxFilterValues)
		}
		if f.Limit > maxLimit {
			return fmt.Sprintf("invalid: filter %d asks for limit %d, above max_limit %d", i, f.Limit, maxLimit)
		}
		if f.Search != "" {
			if _, err := store.ParseSearch(f.Search); err != nil {
				return err.Error()
			}
		}
		for _, fn := range r.Hooks.RejectFilter {
			if msg := fn(c.ctx, c, f); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func (c *Conn) handleReq(id string, filters []nostr.Filter) {
	r := c.relay
	if len(id) > r.cfg.MaxSubIDLength {
		c.reply(closedMsg(id, fmt.Sprintf("invalid: subscription id longer than %d", r.cfg.MaxSubIDLength)))
		return
	}
	if r.Hooks.Invite != nil && inviteOnly(filters) {
		c.handleInvite(id, filters)
		return
	}
	if msg := c.checkFilters(filters); msg != "" {
		c.reply(closedMsg(id, msg))
		return
	}
	named, msg, err := c.namedEvents(filters)
	switch {
	case err != nil:
		c.reply(closedMsg(id, "error: checking the events you named: "+err.Error()))
		return
	case msg != "":
		c.reply(closedMsg(id, msg))
		return
	}
	// Search filters are answered from the log only (spec/protocol.md): the
	// subscription listens with the others.
	id = strings.Clone(id) // kept while the REQ is open: not a view of the whole message
	sub := newSubscription(c, id, filters)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	var old *subscription
	if i := c.subPos(id); i >= 0 {
		old, c.subs[i] = c.subs[i], sub
	} else if len(c.subs) >= r.cfg.MaxSubscriptions {
		c.mu.Unlock()
		c.reply(closedMsg(id, fmt.Sprintf("rate-limited: at most %d open subscriptions per connection; CLOSE one first", r.cfg.MaxSubscriptions)))
		return
	} else {
		c.subs = append(c.subs, sub)
	}
	c.mu.Unlock()
	if old != nil {
		r.subs.remove(old)
	}
	// Listen before reading the log, so nothing committed meanwhile is missed.
	r.subs.add(sub)

	scope := r.readScope(c)
	a := c.newAnswer()
	for i, f := range filters {
		var ids []store.Stored
		if named != nil {
			ids = named[i]
		}
		if err := c.sendStored(sub, f, scope, ids, a); err != nil {
			a.frame(closedMsg(id, prefixed(err)))
			a.done()
			c.handleClose(id)
			return
		}
	}
	a.frame(eose(id))
	a.done()
	if len(sub.filters) == 0 {
		c.handleClose(id) // nothing to follow: the REQ ends at EOSE
		return
	}
	select { // live events broadcast until now were checked against what was sent
	case r.fanout <- fanItem{settled: sub}:
	case <-r.stop:
	}
}

// pageRows is how many stored events a REQ reads from the log at once: a big
// answer is read a page at a time, each page sent (at the speed the client
// reads) before the next is read, so the hub never holds a whole answer.
const pageRows = 100

// sendStored sends the stored events matching f that the reader may read,
// newest first, up to f's limit. Pages follow each other by created_at: the
// next page asks for events up to the oldest created_at sent so far and skips
// those already sent at that second.
// A filter that names ids is answered from named, its events as
// namedEvents read them.
func (c *Conn) sendStored(sub *subscription, f nostr.Filter, scope *store.Scope, named []store.Stored, a *answer) error {
	r := c.relay
	if f.LimitZero {
		return nil
	}
	if f.Search != "" {
		return c.sendSearch(sub, f, scope, a)
	}
	if len(f.IDs) > 0 {
		c.idsAnswer(sub, f, named, a)
		return nil
	}
	want := r.rowLimit(f)
	var oldest nostr.Timestamp
	atOldest := map[string]struct{}{} // ids sent whose created_at is oldest
	for want > 0 {
		page := f
		page.Limit = min(want, pageRows) + len(atOldest)
		if len(atOldest) > 0 {
			page.Until = &oldest
		}
		done := c.startRead()
		if done == nil {
			return context.Canceled
		}
		found, err := r.store.QueryRaw(c.ctx, page, scope)
		if err != nil {
			done()
			return err
		}
		for i := range found {
			st := &found[i]
			if _, sent := atOldest[st.ID]; sent {
				continue
			}
			if st.CreatedAt != oldest || len(atOldest) == 0 {
				oldest = st.CreatedAt
				clear(atOldest)
			}
			atOldest[st.ID] = struct{}{}
			if want--; want < 0 {
				break
			}
			if r.canRead(c, st) && sub.claim(st.ID) {
				a.event(sub.prefix, st.Raw, st.Kind)
			}
		}
		done()
		if len(found) < page.Limit {
			return nil // the log has no more
		}
	}
	return nil
}

// sendSearch sends a search filter's results, ranked, in one read: ranking
// comes before the limit, so the answer cannot be paged by created_at.
func (c *Conn) sendSearch(sub *subscription, f nostr.Filter, scope *store.Scope, a *answer) error {
	done := c.startRead()
	if done == nil {
		return context.Canceled
	}
	defer done()
	found, err := c.relay.store.QueryRaw(c.ctx, f, scope)
	if err != nil {
		return err
	}
	for i := range found {
		if st := &found[i]; c.relay.canRead(c, st) && sub.claim(st.ID) {
			a.event(sub.prefix, st.Raw, st.Kind)
		}
	}
	return nil
}

func (c *Conn) handleCount(id string, filters []nostr.Filter) {
	if msg := c.checkFilters(filters); msg != "" {
		c.reply(closedMsg(id, msg))
		return
	}
	if _, msg, err := c.namedEvents(filters); err != nil || msg != "" {
		if err != nil {
			msg = "error: checking the events you named: " + err.Error()
		}
		c.reply(closedMsg(id, msg))
		return
	}
	n, err := c.relay.store.CountFilters(c.ctx, filters, c.relay.readScope(c))
	if err != nil {
		c.reply(closedMsg(id, prefixed(err)))
		return
	}
	c.reply(countMsg(id, n))
}

func (c *Conn) handleClose(id string) {
	c.mu.Lock()
	var sub *subscription
	if i := c.subPos(id); i >= 0 {
		sub = c.subs[i]
		c.subs = slices.Delete(c.subs, i, i+1)
	}
	c.mu.Unlock()
	if sub != nil {
		c.relay.subs.remove(sub)
	}
}

// subPos is where the open REQ id is in c.subs, or -1. c.mu is held.
func (c *Conn) subPos(id string) int {
	return slices.IndexFunc(c.subs, func(s *subscription) bool { return s.id == id })
}

// readScope is the narrowing of c's stored reads, or nil.
func (r *Relay) readScope(c *Conn) *store.Scope {
	if r.Hooks.ReadScope == nil {
		return nil
	}
	return r.Hooks.ReadScope(c)
}
