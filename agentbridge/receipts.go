package agentbridge

import (
	"context"
	"log/slog"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// outboxSize bounds the receipts waiting to be published; past it new ones
// are dropped (logged): the reply is still posted, only its receipts lag.
const outboxSize = 4096

// outbox publishes the agent's receipts (kind 40010) in the order they were
// made, off the path of the prompt, each stamped when its state changed
// (created_at and the ms tag: a mention's receipts sort in that order
// whatever second they fall in).
type outbox struct {
	items  chan outboxItem
	stamps kinds.Stamper
	log    *slog.Logger
	status *statusBoard // hears of each failure's reason
}

// outboxItem is a receipt to publish, or (then) what to do once every
// receipt queued before it is out.
type outboxItem struct {
	ev   *nostr.Event
	then func()
}

func newOutbox(log *slog.Logger, status *statusBoard) *outbox {
	return &outbox{items: make(chan outboxItem, outboxSize), log: log, status: status}
}

// receiptEvent is the agent's receipt on mention m (spec/agents.md,
// "Receipts"): h the channel, e the mention, p its author, status, the
// reason as content, and q the reply once answered.
func receiptEvent(m Mention, status, reason, reply string) *nostr.Event {
	tags := nostr.Tags{{"h", m.Channel}, {"e", m.ID}, {"p", m.Author}, {"status", status}}
	if reply != "" {
		tags = append(tags, nostr.Tag{"q", reply})
	}
	return &nostr.Event{Kind: kinds.Receipt, Content: clipTo(reason, maxReasonBytes), Tags: tags}
}

// maxReasonBytes bounds a receipt's reason (the failure reply holds the rest).
const maxReasonBytes = 1024

// receipt queues the agent's receipt on each mention of ms (queued steers
// have none). It never blocks.
func (o *outbox) receipt(ms []Mention, status, reason, reply string) {
	for _, m := range ms {
		if m.ID == "" {
			continue
		}
		ev := receiptEvent(m, status, reason, reply)
		o.stamps.Stamp(ev)
		select {
		case o.items <- outboxItem{ev: ev}:
		default:
			o.log.Warn("receipt not published: too many waiting", "event", m.ID, "status", status)
		}
	}
	if kinds.ReceiptFinal(status) && status != kinds.ReceiptAnswered && reason != "" {
		o.status.failed(reason)
	}
}

// then runs fn on the outbox's goroutine once every receipt queued before
// it has been published (or refused). It never blocks: with the outbox
// full, fn runs at once.
func (o *outbox) then(fn func()) {
	select {
	case o.items <- outboxItem{then: fn}:
	default:
		fn()
	}
}

// receiptDelay is how long a receipt waits for a newer one on the same
// mention (queued, then working a moment later): only the newest goes out,
// and the hub's writes of receipts stay off the moment a prompt goes out.
const receiptDelay = 100 * time.Millisecond

// run publishes queued receipts until ctx ends, waiting for the hub
// connection (publish); one the hub refuses for good is logged and dropped.
func (o *outbox) run(ctx context.Context, publish func(context.Context, *nostr.Event) error) {
	for {
		var first outboxItem
		select {
		case <-ctx.Done():
			return
		case first = <-o.items:
		}
		batch := []outboxItem{first}
		wait := time.After(receiptDelay)
	collect:
		for {
			select {
			case <-ctx.Done():
				return
			case it := <-o.items:
				batch = append(batch, it)
			case <-wait:
				break collect
			}
		}
		var evs []*nostr.Event
		for _, it := range batch {
			if it.ev != nil {
				evs = append(evs, it.ev)
			}
		}
		for _, ev := range newestPerMention(evs) {
			if err := publish(ctx, ev); err != nil && ctx.Err() == nil {
				o.log.Warn("the hub refused a receipt", "event", tagValue(ev.Tags, "e"), "status", tagValue(ev.Tags, "status"), "err", err)
			}
		}
		if ctx.Err() != nil {
			return // what the receipts were waited for is left to the next run
		}
		for _, it := range batch {
			if it.then != nil {
				it.then()
			}
		}
	}
}

// newestPerMention keeps, of receipts in the order made, the last one on
// each mention, in the order of those last ones.
func newestPerMention(evs []*nostr.Event) []*nostr.Event {
	last := map[string]int{}
	for i, ev := range evs {
		last[tagValue(ev.Tags, "e")] = i
	}
	out := evs[:0:0]
	for i, ev := range evs {
		if last[tagValue(ev.Tags, "e")] == i {
			out = append(out, ev)
		}
	}
	return out
}
