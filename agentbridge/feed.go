package agentbridge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// How the bridge checks that its live subscription delivers
// (spec/agents.md, "Hearing mentions").
const (
	probeWait   = 5 * time.Second  // a status not back on the subscription by then: it is deaf
	deafRetries = 3                // deaf resubscriptions in a row, then the connection is made anew
	deafBackoff = 30 * time.Second // the longest wait between two resubscriptions
)

// feed is the bridge's live subscription to its channels: their messages,
// edits and deletes (mentions, and the context cache), and the agent's own
// status. Every status the bridge publishes is also a probe: the hub must
// send it back on this subscription within probeWait, so a subscription
// that delivers nothing (closed by the hub, lost in a reconnect, or
// silently dead) is noticed, shown in the status (deaf) and subscribed
// again. Owned by serve's goroutine.
type feed struct {
	r        *runner
	h        HubConn
	channels map[string]channelInfo
	sub      *Sub
	fresh    bool // the context cache must start afresh at the next subscribe

	probes  map[string]nostr.Timestamp // published statuses not seen back: id -> created_at
	sentAt  map[string]time.Time       // when each was published
	fails   int                        // resubscriptions in a row that stayed deaf
	retryAt time.Time                  // when a deaf feed subscribes again (zero: not deaf)
}

func newFeed(r *runner, h HubConn) *feed {
	return &feed{r: r, h: h, channels: map[string]channelInfo{}, fresh: true, probes: map[string]nostr.Timestamp{}, sentAt: map[string]time.Time{}}
}

// events and closed are the subscription's channels (nil without one).
func (f *feed) events() (<-chan *nostr.Event, <-chan string) {
	if f.sub == nil {
		return nil, nil
	}
	return f.sub.Events, f.sub.Closed
}

// subscribe (re)opens the subscription for the channels known, and asks
// for a status to probe it.
func (f *feed) subscribe(ctx context.Context) error {
	if f.sub != nil {
		f.sub.Unsub()
		f.sub = nil
	}
	at := time.Now()
	sub, err := f.subscribeMentions(ctx)
	if err != nil {
		return err
	}
	f.sub = sub
	if sub == nil {
		return nil
	}
	f.r.cache.follow(slices.Collect(maps.Keys(f.channels)), at, f.fresh)
	f.fresh = false
	f.r.status.probe()
	return nil
}

// close ends the subscription.
func (f *feed) close() {
	if f.sub != nil {
		f.sub.Unsub()
	}
}

// published notes a status the bridge published on this connection: a
// probe that must come back.
func (f *feed) published(ev *nostr.Event) {
	if f.sub == nil {
		return
	}
	f.probes[ev.ID], f.sentAt[ev.ID] = ev.CreatedAt, time.Now()
}

// statusBack takes the agent's own status as it came back: it answers
// every probe not newer than it (a replaceable event: the hub may send
// only the newest).
func (f *feed) statusBack(ev *nostr.Event) {
	for id, at := range f.probes {
		if at <= ev.CreatedAt {
			delete(f.probes, id)
			delete(f.sentAt, id)
		}
	}
	if len(f.probes) == 0 && f.r.status.deaf() != "" {
		f.r.log.Info("the live subscription delivers again", "after", f.fails+1)
		f.r.status.setDeaf("")
		f.fails, f.retryAt = 0, time.Time{}
	}
}

// lost says the subscription delivers nothing, and why: the status shows
// it, and the feed subscribes again now (the first time) or after a
// backoff.
func (f *feed) lost(why string) {
	if f.r.status.deaf() == "" {
		f.r.log.Warn("the live subscription to the agent's channels delivers nothing; subscribing again", "why", why)
		f.r.status.setDeaf(why)
		f.retryAt = time.Now()
	} else {
		f.fails++
		f.r.log.Warn("the live subscription is still deaf", "why", why, "attempts", f.fails)
		f.retryAt = time.Now().Add(min(deafBackoff, time.Second<<f.fails))
	}
	clear(f.probes)
	clear(f.sentAt)
	f.fresh = true // the context cache may have missed events meanwhile
}

// tick checks the probes and resubscribes a deaf feed when its time has
// come; an error ends the connection (after deafRetries deaf attempts too).
func (f *feed) tick(ctx context.Context, now time.Time) error {
	for _, at := range f.sentAt {
		if now.Sub(at) > probeWait {
			f.lost(fmt.Sprintf("the agent's own status did not come back on it within %v", probeWait))
			break
		}
	}
	if f.retryAt.IsZero() || now.Before(f.retryAt) {
		return nil
	}
	if f.fails >= deafRetries {
		return fmt.Errorf("the live subscription stayed deaf after %d attempts", f.fails)
	}
	f.retryAt = now.Add(deafBackoff) // until a probe says otherwise
	return f.subscribe(ctx)
}

// subscribeMentions asks for the messages in the agent's channels since the
// cursor (a stream's that do not p-tag the agent are looked at for the
// agent's name typed without the tag), with their edits and deletes for
// the context cache, and the agent's own status (the probe).
func (f *feed) subscribeMentions(ctx context.Context) (*Sub, error) {
	var streams, dms []string
	for ch, info := range f.channels {
		if info.typ == "dm" {
			dms = append(dms, ch)
		} else {
			streams = append(streams, ch)
		}
	}
	slices.Sort(streams)
	slices.Sort(dms)
	since := ts(time.Unix(f.r.state.Cursor(), 0).Add(-catchUpSlack))
	var fs nostr.Filters
	if len(streams) > 0 {
		fs = append(fs, nostr.Filter{Kinds: cachedKinds(), Tags: nostr.TagMap{"h": streams}, Since: since})
	}
	if len(dms) > 0 {
		fs = append(fs, nostr.Filter{Kinds: cachedKinds(), Tags: nostr.TagMap{"h": dms}, Since: since})
	}
	if len(fs) == 0 {
		return nil, nil
	}
	fs = append(fs, nostr.Filter{Kinds: []int{kinds.AgentStatus}, Authors: []string{f.r.keys.PublicHex}, Since: since})
	return f.h.Subscribe(ctx, fs)
}

// isProbe reports whether ev is the agent's own status (the feed's probe).
func (f *feed) isProbe(ev *nostr.Event) bool {
	return ev.Kind == kinds.AgentStatus && ev.PubKey == f.r.keys.PublicHex
}
