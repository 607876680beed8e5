package relay

import (
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Fan-out: one goroutine takes committed events in order, finds the
// subscriptions each matches (subIndex) and delivers it to them. An event's
// deliveries are shared with fanoutHelpers more goroutines when there are
// enough of them; the next event starts when all are done, so frames keep
// their order on every connection. Each writes where a connection's socket
// is free (sendLive), so one event to 1,000 subscribers is 1,000 writev calls
// spread over those goroutines, without a hand-off per connection.

const (
	fanoutHelpers = 1  // goroutines besides the fan-out's that deliver an event
	minShare      = 64 // fewer deliveries than this per goroutine are not shared
)

// fanShare is the part of a round's deliveries given to a helper.
type fanShare func(w *sockWriter)

// fanoutLoop delivers committed events to live subscribers, re-checking every
// filter and the read policy for each recipient.
func (r *Relay) fanoutLoop() {
	defer r.wg.Done()
	w := newSockWriter()
	shares := make(chan fanShare)
	done := make(chan struct{}, fanoutHelpers)
	r.wg.Add(fanoutHelpers)
	for range fanoutHelpers {
		go r.fanoutHelper(shares, done)
	}
	for {
		select {
		case <-r.stop:
			return
		case it := <-r.fanout:
			if s := it.settled; s != nil {
				settle(s)
				continue
			}
			// Take the events queued behind this one too (up to a settled
			// subscription, which must wait for the events before it).
			evs := append(r.joined[:0], it.ev)
			var settled *subscription
		more:
			for len(evs) < maxJoin {
				select {
				case next := <-r.fanout:
					if next.settled != nil {
						settled = next.settled
						break more
					}
					evs = append(evs, next.ev)
				default:
					break more
				}
			}
			ok := true
			if len(evs) == 1 {
				ok = r.deliver(evs[0], w, shares, done)
			} else {
				ok = r.deliverJoined(evs, w, shares, done)
			}
			clear(evs)
			r.joined = evs[:0]
			if !ok {
				return
			}
			if settled != nil {
				settle(settled)
			}
		}
	}
}

// settle ends s's overlap of stored and live events (subscription.sent).
func settle(s *subscription) {
	s.mu.Lock()
	s.sent = nil
	s.mu.Unlock()
}

// fanoutHelper delivers the shares it is given, each with done after it.
func (r *Relay) fanoutHelper(shares <-chan fanShare, done chan<- struct{}) {
	defer r.wg.Done()
	w := newSockWriter()
	for {
		select {
		case <-r.stop:
			return
		case sh := <-shares:
			sh(w)
			done <- struct{}{}
		}
	}
}

// deliver sends ev to every subscription that matches it and may read it,
// sharing the work with the helpers; false means the relay is stopping.
func (r *Relay) deliver(ev *nostr.Event, w *sockWriter, shares chan<- fanShare, done <-chan struct{}) bool {
	matched := r.match(ev)
	defer func() {
		clear(matched)
		r.matched = matched
	}()
	if len(matched) == 0 {
		return true
	}
	// The event's JSON and the closing bracket are rendered once and shared
	// by every subscriber's frame; each gets only its header and prefix.
	body := append(encodeEvent(ev), closeBracket...)
	live := store.Live(ev, nil)
	return r.share(len(matched), w, shares, done, func(from, to int, w *sockWriter) {
		r.deliverTo(&live, body, matched[from:to], w)
	})
}

// match lists the subscriptions with a filter that matches ev, in r.matched.
// Filters are matched under the index lock; the read hooks run after it is
// released, since they may consult state of their own.
func (r *Relay) match(ev *nostr.Event) []*subscription {
	matched := r.matched[:0]
	r.subs.candidates(ev, func(s *subscription) {
		for i := range s.filters {
			if s.filters[i].matches(ev) {
				matched = append(matched, s)
				return
			}
		}
	})
	return matched
}

// share runs part over n deliveries, split between this goroutine (with w)
// and the helpers when there are enough of them, and returns when all are
// done; false means the relay is stopping.
func (r *Relay) share(n int, w *sockWriter, shares chan<- fanShare, done <-chan struct{}, part func(from, to int, w *sockWriter)) bool {
	parts := min(1+fanoutHelpers, n/minShare)
	if parts < 2 {
		part(0, n, w)
		return true
	}
	per := (n + parts - 1) / parts
	for i := 1; i < parts; i++ {
		from, to := i*per, min(n, (i+1)*per)
		select {
		case shares <- func(w *sockWriter) { part(from, to, w) }:
		case <-r.stop:
			return false
		}
	}
	part(0, per, w)
	for i := 1; i < parts; i++ {
		select {
		case <-done:
		case <-r.stop:
			return false
		}
	}
	return true
}

// deliverTo sends live, rendered as body, to those of subs that may read it.
// The read hooks only read live, so the goroutines sharing an event share it.
func (r *Relay) deliverTo(live *store.Stored, body []byte, subs []*subscription, w *sockWriter) {
	reads := r.audience(live)
	sent := 0
	var heads headArena
	for _, s := range subs {
		if !reads(s.conn) || !s.claim(live.ID) {
			continue
		}
		sent++
		s.conn.sendLive(w, outFrame{head: heads.textHead(len(s.prefix)+len(body), s.prefix), body: body})
	}
	r.metrics().EventOut(live.Kind, sent)
}

// audience judges who may read live: Hooks.Audience's judge, else CanRead.
func (r *Relay) audience(live *store.Stored) func(c *Conn) bool {
	if r.Hooks.Audience != nil {
		return r.Hooks.Audience(live)
	}
	return func(c *Conn) bool { return r.canRead(c, live) }
}

func (r *Relay) canRead(c *Conn, ev *store.Stored) bool {
	for _, fn := range r.Hooks.CanRead {
		if !fn(c, ev) {
			return false
		}
	}
	return true
}
