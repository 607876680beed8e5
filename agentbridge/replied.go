package agentbridge

import (
	"context"
	"log/slog"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// replySkew is how far a mention's created_at (its author's clock) may be
// ahead of the agent's reply to it (the bridge's clock): the hub's default
// max_future_skew.
const replySkew = 15 * time.Minute

// priorReplies finds the replies that an earlier run of the bridge posted
// but did not record (it died between the two). Its methods run on the
// mention loop's goroutine (serve), one connection after another.
type priorReplies struct {
	agent string
	start time.Time // when this run started
	log   *slog.Logger

	known bool            // last was looked up
	last  nostr.Timestamp // the agent's newest message from before this run
}

// reply is the earlier run's reply to ev on the hub, or nil.
func (p *priorReplies) reply(ctx context.Context, h HubConn, ev *nostr.Event) *nostr.Event {
	if !p.mayHave(ctx, h, ev) {
		return nil
	}
	return replyOnHub(ctx, h, p.agent, ev.ID, p.log)
}

// mayHave reports whether an earlier run may have answered ev, so the hub
// must be asked: ev is dated before this run started and not after the
// agent's newest message from before it (looked up once per run, plus
// replySkew). Each replyOnHub is two hub queries that the mention loop
// waits for while the hub client queues every decoded event that arrives
// meanwhile: checking each mention of a flood that came in the start's
// second piled the flood up there (1,500 of 32 KiB: 34 -> 124 MiB).
func (p *priorReplies) mayHave(ctx context.Context, h HubConn, ev *nostr.Event) bool {
	if !ev.CreatedAt.Time().Before(p.start.Add(time.Second)) {
		return false
	}
	if !p.known {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		until := nostr.Timestamp(p.start.Unix())
		evs, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{p.agent}, Until: &until, Limit: 1})
		if err != nil {
			p.log.Warn("could not look up the agent's last message before the start", "err", err)
			return true
		}
		p.known = true
		for _, e := range evs {
			p.last = max(p.last, e.CreatedAt)
		}
	}
	return p.last > 0 && ev.CreatedAt <= p.last+nostr.Timestamp(replySkew.Seconds())
}

// replyOnHub is the agent's reply to mention id that the hub holds, or nil:
// a message of the agent's naming id as its reply target, or quoting it as
// one of the mentions its batch answered.
func replyOnHub(ctx context.Context, h HubConn, agent, id string, log *slog.Logger) *nostr.Event {
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, tag := range []string{"e", "q"} {
		evs, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{agent}, Tags: nostr.TagMap{tag: {id}}, Limit: 10})
		if err != nil {
			log.Warn("could not check for an earlier reply", "event", id, "err", err)
			return nil
		}
		for _, ev := range evs {
			for _, t := range ev.Tags {
				if (len(t) >= 4 && t[0] == "e" && t[1] == id && t[3] == "reply") || (len(t) >= 2 && t[0] == "q" && t[1] == id) {
					return ev
				}
			}
		}
	}
	return nil
}
