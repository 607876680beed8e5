package relay

import (
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// When events queue for the fan-out (it fell behind: a burst of commits, or
// the cores are busy), one round takes up to maxJoin of them and gives each
// connection the frames of all the events it gets in one write, in commit
// order: a connection subscribed to a busy channel costs one writev per
// round instead of one per event.

// maxJoin is the most queued events one fan-out round takes.
const maxJoin = 32

// connFrames is one connection's frames of a round, in order.
type connFrames struct {
	c      *Conn
	frames []outFrame
}

// deliverJoined delivers evs, in order, to every subscription that matches
// and may read them, one write per connection; false means the relay is
// stopping. It runs on the fan-out goroutine, which owns Conn.joinRound and
// Conn.joinSlot.
func (r *Relay) deliverJoined(evs []*nostr.Event, w *sockWriter, shares chan<- fanShare, done <-chan struct{}) bool {
	r.joinRound++
	groups := r.groups[:0]
	var heads headArena
	for _, ev := range evs {
		matched := r.match(ev)
		if len(matched) > 0 {
			body := append(encodeEvent(ev), closeBracket...)
			live := store.Live(ev, nil)
			reads := r.audience(&live)
			sent := 0
			for _, s := range matched {
				if !reads(s.conn) || !s.claim(live.ID) {
					continue
				}
				sent++
				c := s.conn
				if c.joinRound != r.joinRound {
					c.joinRound, c.joinSlot = r.joinRound, len(groups)
					if len(groups) < cap(groups) {
						groups = groups[:len(groups)+1]
						groups[c.joinSlot].c = c
					} else {
						groups = append(groups, connFrames{c: c})
					}
				}
				g := &groups[c.joinSlot]
				g.frames = append(g.frames, outFrame{head: heads.textHead(len(s.prefix)+len(body), s.prefix), body: body})
			}
			r.metrics().EventOut(live.Kind, sent)
		}
		clear(matched)
		r.matched = matched
	}
	ok := r.share(len(groups), w, shares, done, func(from, to int, w *sockWriter) {
		for _, g := range groups[from:to] {
			g.c.sendLiveFrames(w, g.frames)
		}
	})
	for i := range groups { // keep the frame slices, not the frames or connections
		clear(groups[i].frames)
		groups[i] = connFrames{frames: groups[i].frames[:0]}
	}
	r.groups = groups[:0]
	return ok
}
