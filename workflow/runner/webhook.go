package runner

import (
	"context"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/webhook"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// hookCatchUp is how far back the runner looks for webhook deliveries
// when it starts: the hub has answered 202 for each, so a runner that was
// down for up to a day still runs them (once: their claims decide).
const hookCatchUp = 24 * time.Hour

// deliveryFilter follows the hub's webhook deliveries (40463) from the
// cursor minus the skew, at most hookCatchUp back.
func (r *Runner) deliveryFilter() nostr.Filter {
	since := nostr.Timestamp(r.now().Add(-hookCatchUp).Unix())
	if c := r.cursor - nostr.Timestamp(cursorSkew.Seconds()); r.cursor > 0 && c > since {
		since = c
	}
	return nostr.Filter{Kinds: []int{kinds.WebhookDelivery}, Since: &since}
}

// onDelivery starts the run a webhook delivery starts: the hub stores one
// per hook and delivery id, in the channel of the workflow its a names,
// only for a workflow with a webhook trigger.
func (r *Runner) onDelivery(ctx context.Context, ev nostr.Event) {
	addr := tagValue(ev, "a")
	r.startMatching(ctx, tagValue(ev, "h"), ev, func(a string, df *def) (start, bool) {
		if a != addr || df.d.On.Webhook == nil {
			return start{}, false
		}
		e := ev
		return start{addr: addr, trigger: client.TriggerWebhook, ref: ev.ID, at: ev.CreatedAt,
			values: r.deliveryValues(ev), origin: &e}, true
	})
}

// deliveryValues are a delivery's trigger values: no author (a webhook
// is no person), its event name as the text. r.mu held.
func (r *Runner) deliveryValues(ev nostr.Event) expression.Trigger {
	c, _ := webhook.ParseContent(ev.Content)
	ch := tagValue(ev, "h")
	return expression.Trigger{Type: client.TriggerWebhook, ID: ev.ID, Text: c.Event, At: ev.CreatedAt.Time(), Mentions: []string{},
		Channel: expression.Channel{ID: ch, Name: r.chans[ch].Name}}
}

// webhookOf is what a webhook run's expressions see as webhook: its
// delivery, read again when the run resumed from its records.
func (r *Runner) webhookOf(rn *run) expression.Webhook {
	if rn.trigger != client.TriggerWebhook {
		return expression.Webhook{Headers: map[string]string{}}
	}
	if rn.hook != nil {
		return *rn.hook
	}
	ev := rn.origin
	if ev == nil || ev.ID != rn.ref {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		evs, err := r.c.Query(ctx, nostr.Filter{IDs: []string{rn.ref}})
		cancel()
		if err != nil || len(evs) == 0 {
			r.log.Warn("a webhook run's delivery is not readable", "run", rn.id, "delivery", rn.ref, "err", err)
			return expression.Webhook{Headers: map[string]string{}}
		}
		ev = &evs[0]
	}
	c, _ := webhook.ParseContent(ev.Content)
	w := expression.Webhook{Event: c.Event, Delivery: tagValue(*ev, "i"), Headers: c.Headers, Body: c.Value()}
	rn.hook = &w
	return w
}
