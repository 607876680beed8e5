package agentbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ainb/hive/client"
	obs "github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// catchUpSlack is how far behind the cursor catch-up starts (clock skew).
const catchUpSlack = answeredKeep

// run serves one agent until ctx ends: dispatcher, observer, and the
// connection loop, reconnecting with backoff.
func (r *runner) run(ctx context.Context) {
	r.runCtx = ctx
	defer func() {
		r.disp.stopProcesses()
		r.state.Flush()
	}()
	go r.obs.run(ctx)
	go r.out.run(ctx, r.link.publish)
	r.settleLastRun(ctx)
	go r.disp.run(ctx)
	backoff := time.Second
	for ctx.Err() == nil {
		h := r.link.current()
		if h == nil {
			var err error
			h, err = r.link.dialOnce(ctx)
			if err != nil {
				r.log.Warn("reconnecting to the hub", "err", err, "in", backoff)
				select {
				case <-ctx.Done():
					return
				case <-time.After(backoff):
				}
				backoff = min(backoff*2, 30*time.Second)
				continue
			}
			r.link.set(h)
		}
		backoff = time.Second
		if err := r.serve(ctx, h); err != nil && ctx.Err() == nil {
			r.log.Warn("hub connection ended", "err", err)
		}
		r.link.set(nil)
		h.Close()
	}
}

// channelInfo is what the bridge knows of a channel the agent belongs to.
type channelInfo struct{ typ string }

// serve runs one connection: profile, presence, membership, subscriptions.
func (r *runner) serve(ctx context.Context, h HubConn) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := r.publishProfile(ctx, h); err != nil {
		return err
	}
	r.presence(ctx, h, "online")
	// obs.Control frames from the owner and the owner's paired devices (the hub
	// lets no one else send 24200 to the agent; onControl checks again).
	ctl, err := h.Subscribe(ctx, nostr.Filters{{Kinds: []int{kinds.ObserverFrame}, Tags: nostr.TagMap{"p": {r.keys.PublicHex}},
		Since: ts(time.Now().Add(-obs.ControlMaxAge))}})
	if err != nil {
		return fmt.Errorf("control subscription: %w", err)
	}
	defer ctl.Unsub()
	// The status tells watchers of this connection (Conn) only now, so the
	// watch frames they send in answer reach the control subscription.
	r.status.connected(time.Now(), false) // the loop's first status
	statuses := make(chan *nostr.Event, 16)
	go r.status.run(ctx, h, statuses, r.log)
	roster, err := h.Subscribe(ctx, nostr.Filters{{Kinds: []int{kinds.GroupMembers}, Tags: nostr.TagMap{"p": {r.keys.PublicHex}}}})
	if err != nil {
		return fmt.Errorf("membership subscription: %w", err)
	}
	defer roster.Unsub()
	f := newFeed(r, h)
	defer f.close()
	rosterDone := false
	rosterEOSE := roster.EOSE
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		mentionEvents, mentionClosed := f.events()
		select {
		case <-ctx.Done():
			r.presence(context.Background(), h, "offline")
			sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			if _, err := r.status.publish(sctx, h, client.AgentOffline); err != nil {
				r.log.Warn("publishing the offline status", "err", err)
			}
			cancel()
			return nil
		case <-h.Done():
			return errors.New("connection lost")
		case <-h.Reconnected():
			r.status.probe() // the subscriptions were sent again: check that they deliver
		case ev := <-statuses:
			f.published(ev)
		case now := <-tick.C:
			if err := f.tick(ctx, now); err != nil {
				return err
			}
		case ev := <-ctl.Events:
			r.onControl(ctx, h, ev)
		case reason := <-ctl.Closed:
			return fmt.Errorf("the hub closed the control subscription: %s", reason)
		case ev := <-roster.Events:
			if added := r.noteRoster(ctx, h, ev, f.channels); added && rosterDone {
				if err := f.subscribe(ctx); err != nil {
					return err
				}
			}
		case <-rosterEOSE:
			rosterDone, rosterEOSE = true, nil
			if err := f.subscribe(ctx); err != nil {
				return err
			}
		case reason := <-roster.Closed:
			return fmt.Errorf("the hub refused the membership subscription: %s", reason)
		case ev := <-mentionEvents:
			switch {
			case f.isProbe(ev):
				f.statusBack(ev)
			case ev.Kind == kinds.Message:
				r.cache.apply(ev)
				r.onMessage(ctx, h, ev, f.channels)
			default:
				r.cache.apply(ev)
			}
		case reason := <-mentionClosed:
			f.lost("the hub closed it: " + reason)
		}
	}
}

func ts(t time.Time) *nostr.Timestamp {
	v := nostr.Timestamp(t.Unix())
	return &v
}

// noteRoster records a channel whose member list names the agent; it
// reports whether the channel is new.
func (r *runner) noteRoster(ctx context.Context, h HubConn, ev *nostr.Event, channels map[string]channelInfo) bool {
	ch := tagValue(ev.Tags, "d")
	if ch == "" {
		return false
	}
	if _, ok := channels[ch]; ok {
		return false
	}
	info := channelInfo{typ: "stream"}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if meta, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.GroupMetadata}, Tags: nostr.TagMap{"d": {ch}}, Limit: 1}); err == nil && len(meta) > 0 {
		if t := tagValue(meta[0].Tags, "type"); t != "" {
			info.typ = t
		}
	}
	channels[ch] = info
	r.log.Info("member of channel", "channel", ch, "type", info.typ)
	return true
}

// onMessage acts on decide's answer for one message of the agent's
// channels: the mention queued, a not-answered receipt saying why (once:
// the mention is recorded as answered, so a restart does not ask again), or
// an earlier run's answer recorded.
func (r *runner) onMessage(ctx context.Context, h HubConn, ev *nostr.Event, channels map[string]channelInfo) {
	d := r.decide(ctx, h, ev, channels)
	switch d.verdict {
	case ignore:
		if d.why != "" && d.why != notTagged && d.why != ownEvent {
			r.log.Debug("not a mention", "event", ev.ID, "why", d.why)
		}
	case refuse:
		r.state.MarkAnswered([]Mention{d.m}, 0)
		r.out.receipt([]Mention{d.m}, kinds.ReceiptNotAnswered, d.why, "")
	case settle:
		r.state.MarkAnswered([]Mention{d.m}, 0)
		r.finalReceipts([]Mention{d.m}, d.reply) // which the earlier run may not have published
	case answer:
		r.disp.enqueue(d.m)
	}
}

// publishProfile publishes the agent's kind 0 (its persona's name, about
// and picture, else its config name) with the owner's tag and a bot marker,
// so the owner relation is in the log.
func (r *runner) publishProfile(ctx context.Context, h HubConn) error {
	content, _ := json.Marshal(r.cfg.profile())
	ev := &nostr.Event{Kind: kinds.Profile, CreatedAt: nostr.Now(), Content: string(content), Tags: nostr.Tags{r.tag, {"bot"}}}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := h.Publish(pctx, ev); err != nil {
		return fmt.Errorf("publishing the agent's profile: %w", err)
	}
	return nil
}

func (r *runner) presence(ctx context.Context, h HubConn, status string) {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	h.Publish(pctx, &nostr.Event{Kind: kinds.Presence, CreatedAt: nostr.Now(), Content: status, Tags: nostr.Tags{}})
}
