package client

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// A live subscription whose reader falls behind does not hold what it has
// not read without limit. When its queue would pass Options.MaxQueuedEvents
// or Options.MaxQueuedBytes, the queued events are dropped (forgotten as
// delivered) and the subscription is lagged: the pump, once the reader has
// taken what it was handed, reads the dropped stretch back from the hub's
// log, a page at a time, oldest first, skipping every id already handed.
// Live events that arrive meanwhile queue as usual (a catch-up page that
// holds one hands it in its place); if the queue overflows again, the
// catch-up runs once more from the oldest event dropped. So memory stays
// within the bounds plus one page, and a stored event is delivered exactly
// once, in created_at order within each caught-up stretch.

// lagState is what a lagged subscription must read back.
type lagState struct {
	from    nostr.Timestamp // the oldest created_at dropped and not read back yet
	floor   nostr.Timestamp // the oldest created_at the catch-up under way covers (ids above it are kept)
	dropped bool            // something was dropped since the catch-up under way started
}

// Default bounds of a live subscription's queue.
const (
	DefaultMaxQueuedEvents = 10000
	DefaultMaxQueuedBytes  = 16 << 20
)

// maxCatchUpPage bounds the events one catch-up query asks for.
const maxCatchUpPage = 500

// eventSize is what an event costs the queue, roughly: its text, its tags
// and the fixed fields.
func eventSize(ev *nostr.Event) int {
	n := 256 + len(ev.Content)
	for _, t := range ev.Tags {
		for _, v := range t {
			n += len(v) + 8
		}
	}
	return n
}

// dropQueue forgets the queued events, which were not handed to the reader
// yet, and marks the subscription lagged from the oldest of them (prune
// keeps every id handed from there on); s.mu is held.
func (s *Subscription) dropQueue() {
	from := nostr.Timestamp(math.MaxInt64)
	for _, ev := range s.queue {
		from = min(from, ev.CreatedAt)
		delete(s.seen, ev.ID)
	}
	s.c.opts.Log.Debug("subscription lagged: its reader is slow; its queue is dropped and read back from the log",
		"sub", s.id, "events", len(s.queue), "bytes", s.qBytes, "from", from)
	s.queue, s.qBytes = nil, 0
	clear(s.waiting)
	if s.lag == nil {
		s.lag = &lagState{from: from, floor: from}
		return
	}
	s.lag.from, s.lag.floor, s.lag.dropped = min(s.lag.from, from), min(s.lag.floor, from), true
}

// Lagged reports whether the subscription is catching up from the hub's
// log after its reader fell behind.
func (s *Subscription) Lagged() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lag != nil
}

// Queued is what the subscription holds for its reader now: the events
// waiting and their size (eventSize), within the client's bounds.
func (s *Subscription) Queued() (events, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue), s.qBytes
}

// hand gives ev to the reader; false when the subscription was closed.
func (s *Subscription) hand(ev nostr.Event) bool {
	select {
	case s.events <- ev:
		return true
	case <-s.done:
		return false
	}
}

// catchUp reads back what a lagged subscription dropped, until it has
// caught up; false when the subscription was closed meanwhile.
func (s *Subscription) catchUp() bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		s.mu.Lock()
		if s.ended {
			s.mu.Unlock()
			return true
		}
		lo := s.lag.from
		s.lag.from, s.lag.floor, s.lag.dropped = math.MaxInt64, lo, false
		s.mu.Unlock()
		if !s.readBack(ctx, lo) {
			return s.isEnded() // an ended subscription hands what it queued, then ends
		}
		s.mu.Lock()
		if !s.lag.dropped {
			s.lag = nil
			s.mu.Unlock()
			return true
		}
		s.mu.Unlock()
	}
}

// readBack hands the stored events matching the subscription from lo on,
// oldest first, in windows of created_at that each fit in one page: a full
// page narrows the window to before its oldest second, and a second that
// does not fit is read in pages of its own.
func (s *Subscription) readBack(ctx context.Context, lo nostr.Timestamp) bool {
	page := min(s.c.opts.MaxQueuedEvents, maxCatchUpPage)
	hi := nostr.Timestamp(math.MaxInt64) // open: up to the newest
	for {
		evs, ok := s.query(ctx, lo, hi, page)
		if !ok {
			return false
		}
		if len(evs) >= page {
			if oldest := evs[0].CreatedAt; oldest > lo {
				hi = oldest - 1
				continue
			}
			if !s.readSecond(ctx, lo, page) { // [lo+1, hi] fits: the rest of evs
				return false
			}
			lo++
			continue
		}
		for _, ev := range evs {
			if _, ok := s.handCaughtUp(ev); !ok {
				return false
			}
		}
		if hi == math.MaxInt64 {
			return true
		}
		lo, hi = hi+1, math.MaxInt64
	}
}

// readSecond hands every stored event of one second, in pages: the hub
// orders a second's events by id, so each page asks for as many more as
// were handed so far (those are skipped by id).
func (s *Subscription) readSecond(ctx context.Context, at nostr.Timestamp, page int) bool {
	asked := page
	for {
		evs, ok := s.query(ctx, at, at, asked)
		if !ok {
			return false
		}
		fresh := 0
		for _, ev := range evs {
			n, ok := s.handCaughtUp(ev)
			if !ok {
				return false
			}
			fresh += n
		}
		if len(evs) < asked || fresh == 0 {
			return true
		}
		asked = len(evs) + page
	}
}

func (s *Subscription) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// query asks the hub for the subscription's events dated lo to hi (hi
// MaxInt64: no upper bound), at most limit per filter, oldest first. A
// failed query (the connection dropped) is tried again after a second;
// false when the subscription was closed or ended.
func (s *Subscription) query(ctx context.Context, lo, hi nostr.Timestamp, limit int) ([]nostr.Event, bool) {
	filters := slices.Clone(s.filters)
	for i := range filters {
		f := filters[i]
		if f.Since == nil || *f.Since < lo {
			f.Since = &lo
		}
		if hi != math.MaxInt64 && (f.Until == nil || *f.Until > hi) {
			until := hi
			f.Until = &until
		}
		f.Limit = limit
		filters[i] = f
	}
	for {
		qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		evs, err := s.c.Query(qctx, filters...)
		cancel()
		if err == nil {
			return evs, true
		}
		if s.isEnded() {
			return nil, false
		}
		s.c.opts.Log.Debug("a lagged subscription's catch-up query failed; trying again", "sub", s.id, "err", err)
		select {
		case <-ctx.Done():
			return nil, false
		case <-time.After(time.Second):
		}
	}
}

// handCaughtUp hands one event read back from the log unless the reader
// has it already (1 when handed); one still waiting in the queue goes now,
// in its order here, and is skipped there. false when the subscription was
// closed.
func (s *Subscription) handCaughtUp(ev nostr.Event) (int, bool) {
	s.mu.Lock()
	_, queued := s.waiting[ev.ID]
	_, seen := s.seen[ev.ID]
	if seen && !queued {
		s.mu.Unlock()
		return 0, true
	}
	delete(s.waiting, ev.ID)
	s.markSeen(ev)
	s.mu.Unlock()
	return 1, s.hand(ev)
}
