package relay

import (
	"slices"
	"strconv"
	"sync"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// subscription is one open REQ.
type subscription struct {
	conn    *Conn
	id      string
	filters []liveFilter // the REQ's filters but its search ones (never matched live)
	prefix  []byte       // rendered ["EVENT",<id>,
	keys    []string     // where the index files it (filterKeys)

	// sent holds the ids sent to this subscription, stored and live, from its
	// start until the fan-out has caught up with its stored answer; nil
	// afterwards. An event committed around the REQ can be both in the stored
	// answer and in the fan-out's queue: it is sent once.
	mu   sync.Mutex
	sent map[string]struct{}

	// offered is the fan-out round that last offered an event to s: the
	// fan-out goroutine's own, so an event filed under several of s's keys
	// is matched once without a set per event.
	offered uint64
}

func newSubscription(c *Conn, id string, filters []nostr.Filter) *subscription {
	s := &subscription{conn: c, id: id, prefix: eventPrefix(id), sent: map[string]struct{}{}}
	for _, f := range filters {
		if f.Search != "" {
			continue
		}
		s.filters = append(s.filters, newLiveFilter(f))
		for _, k := range filterKeys(f) {
			if !slices.Contains(s.keys, k) {
				s.keys = append(s.keys, k)
			}
		}
	}
	return s
}

// claim reports whether the event id may be sent to s, and records it while
// the stored answer and the fan-out may overlap.
func (s *subscription) claim(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent == nil {
		return true
	}
	if _, dup := s.sent[id]; dup {
		return false
	}
	s.sent[id] = struct{}{}
	return true
}

// fanItem is an event for the fan-out, or a subscription whose stored answer
// is complete: once the fan-out reaches it, every event broadcast before the
// answer ended has been checked against s.sent, which can go.
type fanItem struct {
	ev      *nostr.Event
	settled *subscription
}

// subIndex finds the subscriptions an event may interest without scanning all of
// them: each filter is filed under its most selective field (ids, #h, #p,
// authors, kinds, in that order), or under "*" when it has none.
type subIndex struct {
	mu    sync.RWMutex
	idx   map[string]map[*subscription]struct{}
	round uint64 // candidates calls; the fan-out goroutine's own
}

func newSubIndex() *subIndex {
	return &subIndex{idx: make(map[string]map[*subscription]struct{})}
}

func filterKeys(f nostr.Filter) []string {
	var keys []string
	switch {
	case len(f.IDs) > 0:
		for _, id := range f.IDs {
			keys = append(keys, "i"+id)
		}
	case len(f.Tags["h"]) > 0:
		for _, v := range f.Tags["h"] {
			keys = append(keys, "h"+v)
		}
	case len(f.Tags["p"]) > 0:
		for _, v := range f.Tags["p"] {
			keys = append(keys, "p"+v)
		}
	case len(f.Authors) > 0:
		for _, a := range f.Authors {
			keys = append(keys, "a"+a)
		}
	case len(f.Kinds) > 0:
		for _, k := range f.Kinds {
			keys = append(keys, "k"+strconv.Itoa(k))
		}
	default:
		keys = append(keys, "*")
	}
	return keys
}

// eventKeys lists every index key under which a filter matching ev may be filed.
func eventKeys(ev *nostr.Event) []string {
	keys := make([]string, 0, 5+len(ev.Tags))
	keys = append(keys, "*", "i"+ev.ID, "a"+ev.PubKey, "k"+strconv.Itoa(ev.Kind))
	for _, t := range ev.Tags {
		if len(t) >= 2 && (t[0] == "h" || t[0] == "p") {
			keys = append(keys, t[0]+t[1])
		}
	}
	return keys
}

func (x *subIndex) add(s *subscription) {
	x.mu.Lock()
	for _, k := range s.keys {
		set := x.idx[k]
		if set == nil {
			set = make(map[*subscription]struct{}, 1)
			x.idx[k] = set
		}
		set[s] = struct{}{}
	}
	x.mu.Unlock()
}

func (x *subIndex) remove(s *subscription) {
	x.mu.Lock()
	for _, k := range s.keys {
		if set := x.idx[k]; set != nil {
			delete(set, s)
			if len(set) == 0 {
				delete(x.idx, k)
			}
		}
	}
	x.mu.Unlock()
}

func (x *subIndex) removeConn(c *Conn) {
	c.mu.Lock()
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()
	for _, s := range subs {
		x.remove(s)
	}
}

// candidates calls fn once for each subscription filed under a key of ev.
// fn runs under the index's read lock and must not block. Only the fan-out
// goroutine calls it (see subscription.offered).
func (x *subIndex) candidates(ev *nostr.Event, fn func(*subscription)) {
	x.round++
	x.mu.RLock()
	defer x.mu.RUnlock()
	for _, k := range eventKeys(ev) {
		for s := range x.idx[k] {
			if s.offered == x.round {
				continue
			}
			s.offered = x.round
			fn(s)
		}
	}
}

// fanoutLoop delivers committed events to live subscribers, re-checking every
// filter and the read policy for each recipient.
func (r *Relay) fanoutLoop() {
	defer r.wg.Done()
	for {
		select {
		case <-r.stop:
			return
		case it := <-r.fanout:
			if s := it.settled; s != nil {
				s.mu.Lock()
				s.sent = nil
				s.mu.Unlock()
				continue
			}
			r.deliver(it.ev)
		}
	}
}

func (r *Relay) deliver(ev *nostr.Event) {
	// Match filters under the index lock; run the read hooks after it is
	// released, since they may consult state of their own.
	matched := r.matched[:0]
	r.subs.candidates(ev, func(s *subscription) {
		for i := range s.filters {
			if s.filters[i].matches(ev) {
				matched = append(matched, s)
				return
			}
		}
	})
	// The event's JSON and the closing bracket are rendered once and shared
	// by every subscriber's frame; each gets only its header and prefix.
	var body []byte
	live := store.Live(ev, nil)
	for _, s := range matched {
		if !r.canRead(s.conn, &live) || !s.claim(ev.ID) {
			continue
		}
		if body == nil {
			body = append(encodeEvent(ev), closeBracket...)
		}
		r.metrics().EventOut(ev.Kind)
		s.conn.sendFrame(outFrame{head: textHead(len(s.prefix)+len(body), s.prefix), body: body})
	}
	clear(matched)
	r.matched = matched
}

func (r *Relay) canRead(c *Conn, ev *store.Stored) bool {
	for _, fn := range r.Hooks.CanRead {
		if !fn(c, ev) {
			return false
		}
	}
	return true
}
