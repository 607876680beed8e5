package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/nbd-wtf/go-nostr"
)

// Subscription is a REQ. Its events arrive on Events in order: the stored
// ones (oldest first, held until the hub's EOSE), then live ones as they are
// stored. A live subscription is sent again after each reconnect, from the
// newest created_at it has seen (an event dated in the future counts as its
// arrival time) minus the skew margin; events it has already delivered are
// dropped by id, so each arrives once.
//
// Events wait in a queue between the connection and Events, so a slow
// reader never stalls the connection (or the client's other
// subscriptions). A live subscription's queue is bounded
// (Options.MaxQueuedEvents, Options.MaxQueuedBytes): past either, the queued
// events are dropped and the subscription is lagged; it then catches up from
// the hub's log, at the reader's pace, from the oldest created_at it dropped
// (with id de-duplication), oldest first, and goes back to live delivery
// once it has caught up (lag.go). Stored events are not lost that way; an
// ephemeral event (the hub keeps none) dropped while its reader lags is.
type Subscription struct {
	c       *Client
	id      string
	filters []nostr.Filter
	live    bool

	events chan nostr.Event
	eose   chan struct{}
	done   chan struct{} // closed by Close
	notify chan struct{}

	mu       sync.Mutex
	seen     map[string]nostr.Timestamp
	last     nostr.Timestamp // newest created_at delivered, each counted at most as its arrival time
	stored   []nostr.Event   // stored events of the current REQ, until its EOSE
	inStored bool
	eosed    bool
	queue    []nostr.Event
	waiting  map[string]struct{} // ids in queue (a catch-up may hand one first)
	qBytes   int                 // the queue's size (eventSize)
	lag      *lagState           // set while the subscription catches up from the log
	ended    bool
	err      error
	once     sync.Once
}

// Events delivers the subscription's events. It is closed when the
// subscription ends (Close, a CLOSED from the hub, the client's end); Err then
// says why.
func (s *Subscription) Events() <-chan nostr.Event { return s.events }

// EOSE is closed when the first batch of stored events has been delivered to
// the Events queue.
func (s *Subscription) EOSE() <-chan struct{} { return s.eose }

// Err is why the subscription ended: nil after Close, a *RefusedError for the
// hub's CLOSED, or the client's error.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the subscription and tells the hub.
func (s *Subscription) Close() {
	s.stopPump()
	s.c.dropSub(s)
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	if cn := s.c.conn(); cn != nil {
		cn.write(s.c.opts.Timeout, []any{"CLOSE", s.id})
	}
}

// Subscribe opens a live subscription: it lasts until Close and survives
// reconnects. It returns once the REQ is sent, or with the error of the
// first connection attempt.
func (c *Client) Subscribe(ctx context.Context, filters ...nostr.Filter) (*Subscription, error) {
	return c.subscribe(ctx, true, filters)
}

// Query returns the stored events matching filters, oldest first, or the
// hub's refusal (a *RefusedError).
func (c *Client) Query(ctx context.Context, filters ...nostr.Filter) ([]nostr.Event, error) {
	s, err := c.subscribe(ctx, false, filters)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []nostr.Event
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return out, s.Err()
			}
			out = append(out, ev)
		case <-ctx.Done():
			return out, wrap(ErrUnreachable, fmt.Errorf("query: %w", ctx.Err()))
		}
	}
}

func (c *Client) subscribe(ctx context.Context, live bool, filters []nostr.Filter) (*Subscription, error) {
	if len(filters) == 0 {
		return nil, wrap(ErrInvalid, fmt.Errorf("subscribe: no filter"))
	}
	cn, err := c.current(ctx)
	if err != nil {
		return nil, wrap(ErrUnreachable, err)
	}
	s := &Subscription{
		c: c, filters: slices.Clone(filters), live: live,
		events: make(chan nostr.Event, 64), eose: make(chan struct{}), done: make(chan struct{}),
		notify: make(chan struct{}, 1), seen: map[string]nostr.Timestamp{}, waiting: map[string]struct{}{}, inStored: true,
	}
	c.mu.Lock()
	c.nextSub++
	s.id = fmt.Sprintf("c%d", c.nextSub)
	c.subs[s.id] = s
	c.mu.Unlock()
	c.wg.Add(1)
	go s.pump()
	if err := cn.write(c.opts.Timeout, s.req(s.withLive(s.filters))); err != nil && !live {
		s.Close()
		return nil, wrap(ErrUnreachable, err)
	}
	return s, nil
}

func (c *Client) sub(id string) *Subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[id]
}

func (c *Client) dropSub(s *Subscription) {
	c.mu.Lock()
	if c.subs[s.id] == s {
		delete(c.subs, s.id)
	}
	c.mu.Unlock()
}

func (c *Client) conn() *conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

func (s *Subscription) req(filters []nostr.Filter) []any {
	msg := []any{"REQ", s.id}
	for _, f := range filters {
		msg = append(msg, f)
	}
	return msg
}

// withLive adds, for each of filters (s's filters as sent) bounded by since,
// s's filter without since and with limit 0 (live only). The hub matches
// live events against the whole filter, so a since would keep out every new
// event dated before it: an author whose clock is behind, a message signed
// offline and sent later. Only within resubscribeFilters; a one-shot query
// is sent as it is.
func (s *Subscription) withLive(filters []nostr.Filter) []nostr.Filter {
	if !s.live {
		return filters
	}
	var extra []nostr.Filter
	for i, f := range s.filters {
		if filters[i].Since == nil {
			continue
		}
		f.Since = nil
		f.Limit, f.LimitZero = 0, true
		extra = append(extra, f)
	}
	if len(extra) == 0 || len(filters)+len(extra) > resubscribeFilters {
		return filters
	}
	return append(filters, extra...)
}

// resubscribe sends the REQ on a new connection. A live subscription asks
// only for what it may have missed: since = newest seen minus the skew margin,
// without the original limit (the hub's own cap applies), and live events
// dated before that still come (withLive). A one-shot query that lost its
// connection ends with ErrUnreachable.
// resubscribeFilters is the most filters a resubscription sends: the hub's
// default max_filters.
const resubscribeFilters = 16

func (s *Subscription) resubscribe(cn *conn) {
	if !s.live {
		s.c.dropSub(s)
		s.end(wrap(ErrUnreachable, fmt.Errorf("connection lost during the query")))
		return
	}
	s.mu.Lock()
	filters := slices.Clone(s.filters)
	if s.last > 0 {
		since := s.last - nostr.Timestamp(s.c.opts.SkewMargin.Seconds())
		for i := range filters {
			f := filters[i]
			if f.Since == nil || *f.Since < since {
				f.Since = &since
			}
			f.Limit = 0
			filters[i] = f
		}
	}
	filters = s.withLive(filters)
	s.stored = nil
	s.inStored = true
	s.mu.Unlock()
	cn.write(s.c.opts.Timeout, s.req(filters))
}

// add takes an event from the hub: dropped if already delivered, held if
// stored events are still arriving, else queued.
func (s *Subscription) add(ev nostr.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	if _, dup := s.seen[ev.ID]; dup {
		return
	}
	if s.inStored {
		for _, e := range s.stored {
			if e.ID == ev.ID {
				return
			}
		}
		s.stored = append(s.stored, ev)
		return
	}
	s.deliver(ev)
}

// deliver queues ev; when that would pass the queue's bounds, the events
// queued before it are dropped and the subscription lags (lag.go). s.mu is
// held.
func (s *Subscription) deliver(ev nostr.Event) {
	size := eventSize(&ev)
	if s.live && len(s.queue) > 0 && (len(s.queue)+1 > s.c.opts.MaxQueuedEvents || s.qBytes+size > s.c.opts.MaxQueuedBytes) {
		s.dropQueue()
	}
	s.markSeen(ev)
	s.queue = append(s.queue, ev)
	s.waiting[ev.ID] = struct{}{}
	s.qBytes += size
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// markSeen records ev as delivered (queued or handed to the reader); s.mu
// is held.
func (s *Subscription) markSeen(ev nostr.Event) {
	s.seen[ev.ID] = ev.CreatedAt
	// An event dated ahead of this clock (its author's clock is fast) counts
	// from its arrival: resubscribing from its created_at would skip every
	// event sent meanwhile with a true date.
	if at := min(ev.CreatedAt, nostr.Now()); at > s.last {
		s.last = at
	}
	s.prune()
}

// prune forgets delivered ids too old to come back in a resubscription
// (or in the catch-up of a lagged subscription).
func (s *Subscription) prune() {
	if len(s.seen) < 4096 {
		return
	}
	horizon := s.last - nostr.Timestamp(s.c.opts.SkewMargin.Seconds()) - 1
	if s.lag != nil {
		horizon = min(horizon, s.lag.floor)
	}
	for _, ev := range s.queue { // a drop reads back from the oldest queued
		horizon = min(horizon, ev.CreatedAt)
	}
	for id, at := range s.seen {
		if at < horizon {
			delete(s.seen, id)
		}
	}
}

// storedDone handles EOSE: the held stored events are queued oldest first.
func (s *Subscription) storedDone() {
	s.mu.Lock()
	stored := s.stored
	s.stored, s.inStored = nil, false
	slices.SortStableFunc(stored, func(a, b nostr.Event) int {
		if a.CreatedAt != b.CreatedAt {
			return int(a.CreatedAt - b.CreatedAt)
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, ev := range stored {
		if _, dup := s.seen[ev.ID]; !dup {
			s.deliver(ev)
		}
	}
	first := !s.eosed
	s.eosed = true
	if !s.live {
		s.ended = true // a query ends at its EOSE
	}
	s.mu.Unlock()
	if first {
		close(s.eose)
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// end stops the subscription with err once its queue is delivered.
func (s *Subscription) end(err error) {
	s.mu.Lock()
	if !s.ended {
		s.ended = true
		s.err = err
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *Subscription) stopPump() { s.once.Do(func() { close(s.done) }) }

// pump moves queued events to the Events channel, so a slow reader never
// blocks the connection; a lagged subscription catches up here, at the
// reader's pace.
func (s *Subscription) pump() {
	defer s.c.wg.Done()
	defer close(s.events)
	for {
		s.mu.Lock()
		if s.lag != nil && !s.ended { // what was dropped goes before what queued since
			s.mu.Unlock()
			if !s.catchUp() {
				return
			}
			continue
		}
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue[0] = nostr.Event{}
			s.queue = s.queue[1:]
			s.qBytes -= eventSize(&ev)
			_, mine := s.waiting[ev.ID]
			delete(s.waiting, ev.ID)
			s.mu.Unlock()
			if !mine {
				continue // a catch-up handed it already
			}
			if !s.hand(ev) {
				return
			}
			continue
		}
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return
		}
		select {
		case <-s.notify:
		case <-s.done:
			return
		}
	}
}
