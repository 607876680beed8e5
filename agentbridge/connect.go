package agentbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	r.ctx = ctx
	defer func() {
		r.disp.stopProcesses()
		r.state.Flush()
	}()
	go r.obs.run(ctx)
	go r.out.run(ctx, r.link.publish)
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
func (r *runner) serve(ctx context.Context, h Hub) error {
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
	go r.statusLoop(ctx, h, statuses)
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
			if _, err := r.publishStatus(sctx, h, client.AgentOffline); err != nil {
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
			case r.isProbe(ev):
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
func (r *runner) noteRoster(ctx context.Context, h Hub, ev *nostr.Event, channels map[string]channelInfo) bool {
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

// onMessage routes one message: mention checks, the answer gate, catch-up
// de-duplication, then the queue. A message the agent will not answer that
// asked it (a mention the gate does not admit, one past the hop limit, or
// an "@name" typed without the p tag) gets a not-answered receipt saying
// why, once.
func (r *runner) onMessage(ctx context.Context, h Hub, ev *nostr.Event, channels map[string]channelInfo) {
	info, member := channels[tagValue(ev.Tags, "h")]
	m, why := mentionOf(ev, r.keys.PublicHex, info.typ, member)
	if why == notTagged && r.namedInText(ev.Content) {
		m, why = asMention(ev), ""
		if r.state.Answered(ev.ID) {
			return
		}
		why = "your message names " + r.handle() + " in its text but does not tag the agent (no p tag), so it is not a mention: " +
			"mention it with completion (@ and Tab in hive chat, @" + r.cfg.Name + " in hive send), or reply in a DM with it"
		if !r.mayAsk(ctx, h, ev.PubKey) {
			why = r.gateReason()
		}
		r.notAnswered(m, why)
		return
	}
	if why != "" {
		if ev.PubKey != r.keys.PublicHex && why != notTagged {
			r.log.Debug("not a mention", "event", ev.ID, "why", why)
		}
		if strings.HasPrefix(why, hopLimit) && !r.state.Answered(ev.ID) {
			r.notAnswered(asMention(ev), why+": agents answering agents stop here")
		}
		return
	}
	if r.state.Answered(ev.ID) {
		return
	}
	if !r.mayAsk(ctx, h, ev.PubKey) {
		r.log.Info("not answering a mention: the answer gate does not admit its author", "event", ev.ID, "author", ev.PubKey)
		r.notAnswered(m, r.gateReason())
		return
	}
	if r.mayHaveReplied(ctx, h, ev) && r.repliedOnHub(ctx, h, ev.ID) {
		r.state.MarkAnswered([]Mention{m}, 0)
		return
	}
	m.Received = time.Now()
	r.disp.enqueue(m)
}

// notAnswered records m as answered (a restart does not ask again) and
// gives it a not-answered receipt saying why.
func (r *runner) notAnswered(m Mention, why string) {
	r.state.MarkAnswered([]Mention{m}, 0)
	r.out.receipt([]Mention{m}, kinds.ReceiptNotAnswered, why, "")
}

// replySkew is how far a mention's created_at (its author's clock) may be
// ahead of the agent's reply to it (the bridge's clock): the hub's default
// max_future_skew.
const replySkew = 15 * time.Minute

// mayHaveReplied reports whether an earlier run of the bridge may have
// answered ev, so repliedOnHub must ask the hub: ev is dated before this
// run started and not after the agent's newest message from before it
// (looked up once per run, plus replySkew). Each repliedOnHub is two hub
// queries that the mention loop waits for while the hub client queues
// every decoded event that arrives meanwhile: checking each mention of a
// flood that came in the start's second piled the flood up there (1,500
// of 32 KiB: 34 -> 124 MiB). Called from the mention loop only.
func (r *runner) mayHaveReplied(ctx context.Context, h Hub, ev *nostr.Event) bool {
	if !ev.CreatedAt.Time().Before(r.start.Add(time.Second)) {
		return false
	}
	if !r.ownKnown {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		until := nostr.Timestamp(r.start.Unix())
		evs, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{r.keys.PublicHex}, Until: &until, Limit: 1})
		if err != nil {
			r.log.Warn("could not look up the agent's last message before the start", "err", err)
			return true
		}
		r.ownKnown = true
		for _, e := range evs {
			r.ownLast = max(r.ownLast, e.CreatedAt)
		}
	}
	return r.ownLast > 0 && ev.CreatedAt <= r.ownLast+nostr.Timestamp(replySkew.Seconds())
}

// repliedOnHub reports whether the hub already holds the agent's reply to id
// (the bridge died between posting it and recording it): a message of the
// agent's naming id as its reply target, or quoting it as one of the
// mentions its batch answered.
func (r *runner) repliedOnHub(ctx context.Context, h Hub, id string) bool {
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, tag := range []string{"e", "q"} {
		evs, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{r.keys.PublicHex}, Tags: nostr.TagMap{tag: {id}}, Limit: 10})
		if err != nil {
			r.log.Warn("could not check for an earlier reply", "event", id, "err", err)
			return false
		}
		for _, ev := range evs {
			for _, t := range ev.Tags {
				if (len(t) >= 4 && t[0] == "e" && t[1] == id && t[3] == "reply") || (len(t) >= 2 && t[0] == "q" && t[1] == id) {
					return true
				}
			}
		}
	}
	return false
}

// publishProfile publishes the agent's kind 0 (its persona's name, about
// and picture, else its config name) with the owner's tag and a bot marker,
// so the owner relation is in the log.
func (r *runner) publishProfile(ctx context.Context, h Hub) error {
	content, _ := json.Marshal(r.profile())
	ev := &nostr.Event{Kind: kinds.Profile, CreatedAt: nostr.Now(), Content: string(content), Tags: nostr.Tags{r.tag, {"bot"}}}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := h.Publish(pctx, ev); err != nil {
		return fmt.Errorf("publishing the agent's profile: %w", err)
	}
	return nil
}

func (r *runner) presence(ctx context.Context, h Hub, status string) {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	h.Publish(pctx, &nostr.Event{Kind: kinds.Presence, CreatedAt: nostr.Now(), Content: status, Tags: nostr.Tags{}})
}
