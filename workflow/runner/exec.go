package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// prepare gives rn what it needs before its steps: the trigger read again
// for a claim without records, the card and the started record.
func (r *Runner) prepare(ctx context.Context, rn *run) bool {
	if rn.def == nil && rn.card == nil {
		if err := r.rebuild(ctx, rn); err != nil {
			r.log.Warn("run cannot resume", "run", rn.id, "err", err)
			return false
		}
	}
	if rn.def == nil {
		r.log.Warn("run cannot resume: its started record holds no definition that parses", "run", rn.id)
		return false
	}
	if err := r.ensureCard(ctx, rn); err != nil {
		r.log.Warn("run card", "run", rn.id, "err", err)
		return false
	}
	return true
}

// exec runs rn from where its records leave it: each step not yet done,
// then the end.
func (r *Runner) exec(ctx context.Context, rn *run) {
	for rn.next < len(rn.def.Steps) {
		if r.cancelledBy(ctx, rn) {
			return
		}
		ok, err := r.step(ctx, rn)
		if ctx.Err() != nil {
			return // stopping: the records say where to resume
		}
		if err != nil && !ok {
			st := rn.def.Steps[rn.next]
			r.fail(ctx, rn, fmt.Sprintf("at %s: %v", st.ID, err))
			return
		}
		rn.next++
	}
	if r.cancelledBy(ctx, rn) {
		return
	}
	r.end(ctx, rn, kinds.RunFinished, client.RecordBody{Ms: time.Since(rn.started).Milliseconds()})
}

// cancelledBy ends rn as cancelled if a cancel came (between steps, or
// in a wait).
func (r *Runner) cancelledBy(ctx context.Context, rn *run) bool {
	select {
	case by := <-rn.cancel:
		r.end(ctx, rn, kinds.RunCancelled, client.RecordBody{By: by, Reason: "cancelled by " + r.nameOf(by)})
		return true
	default:
		return false
	}
}

// ensureCard publishes the run's card and started record unless its
// records show them. The card is deterministic too (dated at the trigger,
// its text from the claim's facts), and a resumed run looks for it first.
func (r *Runner) ensureCard(ctx context.Context, rn *run) error {
	if rn.card != nil && rn.card.PubKey == "" && rn.card.ID != "" {
		evs, err := r.c.Query(ctx, nostr.Filter{IDs: []string{rn.card.ID}})
		if err != nil {
			return err
		}
		if len(evs) == 1 {
			rn.card = &evs[0]
		}
		return nil // a started record exists
	}
	if rn.card != nil {
		return nil
	}
	if len(rn.recs) == 0 && rn.claimedBefore() {
		evs, err := r.c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{r.me}, Tags: nostr.TagMap{"q": {rn.id}}, Limit: 1})
		if err != nil {
			return err
		}
		if len(evs) == 1 {
			rn.card = &evs[0]
		}
	}
	if rn.card == nil {
		card := r.cardEvent(rn)
		signed, err := r.c.Publish(ctx, card)
		if err != nil {
			return err
		}
		rn.card = &signed
	}
	rn.started = time.Now()
	trig, _ := json.Marshal(rn.values)
	return r.record(ctx, rn, rn.card.ID, kinds.RunStarted, nil, "", client.RecordBody{Version: rn.version, Definition: rn.source,
		Trigger: trig, Inputs: rn.inputs, Initiator: rn.initiator, Hops: rn.hops})
}

// claimedBefore: the claim is older than this process (a resumed run).
func (rn *run) claimedBefore() bool { return rn.origin == nil || rn.values.Type == "" }

// cardEvent is the run's card: a reply in the trigger's thread for a
// message or reaction, else a top-level message; dated at the trigger.
func (r *Runner) cardEvent(rn *run) nostr.Event {
	r.mu.Lock()
	name := rn.def.Name
	by := ""
	if rn.initiator != "" {
		by = " · started by " + r.names.Name(r.names.ActsFor(rn.initiator))
	}
	r.mu.Unlock()
	what := rn.trigger
	switch rn.trigger {
	case client.TriggerSchedule:
		what = "schedule " + rn.ref
	case client.TriggerManual:
		var kv []string
		for _, in := range manualInputs(rn.def) {
			if v, ok := rn.inputs[in.Name]; ok {
				kv = append(kv, fmt.Sprintf("%s=%v", in.Name, v))
			}
		}
		if len(kv) > 0 {
			what += ": " + strings.Join(kv, " ")
		}
	case client.TriggerReaction:
		what = "reaction " + rn.values.Emoji
	case client.TriggerWebhook:
		what = strings.TrimSpace("webhook " + rn.values.Text)
	}
	text := fmt.Sprintf("▶ %s · run %s%s (%s)", name, rn.id[:8], by, what)
	var card nostr.Event
	if (rn.trigger == client.TriggerMessage || rn.trigger == client.TriggerReaction) && rn.origin != nil {
		card = client.Reply(*rn.origin, text)
	} else {
		card = client.Message(rn.channel, text)
	}
	ms := "0"
	if rn.origin != nil && rn.trigger != client.TriggerReaction {
		if v := tagValue(*rn.origin, kinds.MsTag); v != "" {
			ms = v
		}
	}
	card.CreatedAt = rn.claim.CreatedAt
	card.Tags = append(card.Tags, nostr.Tag{"q", rn.id}, nostr.Tag{"a", rn.address}, hopsTag(rn), nostr.Tag{kinds.MsTag, ms})
	return card
}

func manualInputs(d *workflow.Definition) []workflow.Input {
	if d.On.Manual == nil {
		return nil
	}
	return d.On.Manual.Inputs
}

func hopsTag(rn *run) nostr.Tag { return nostr.Tag{"hops", strconv.Itoa(rn.hops + 1)} }

// values are what the run's expressions see now.
func (r *Runner) values(rn *run) expression.Values {
	return expression.Values{Trigger: rn.values, Inputs: rn.inputs, Steps: rn.steps, Now: r.now(), Webhook: r.webhookOf(rn),
		Run: expression.Run{ID: rn.id, Short: rn.id[:8]}}
}

// record publishes one record of rn on target (its card).
func (r *Runner) record(ctx context.Context, rn *run, target, status string, st *workflow.Step, outcome string, b client.RecordBody) error {
	content, _ := json.Marshal(b)
	ev := nostr.Event{Kind: kinds.RunRecord, Content: r.redact(string(content)), Tags: nostr.Tags{
		{"h", rn.channel}, {"e", target}, {kinds.RunTag, rn.id}, {"status", status}, {"a", rn.address}, hopsTag(rn)}}
	if st != nil {
		ev.Tags = append(ev.Tags, nostr.Tag{"step", st.ID, strconv.Itoa(rn.next + 1), strconv.Itoa(len(rn.def.Steps))})
	}
	if outcome != "" {
		ev.Tags = append(ev.Tags, nostr.Tag{"outcome", outcome})
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if _, err = r.c.Publish(ctx, ev); err == nil || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt+1) * 500 * time.Millisecond):
		}
	}
	if err == nil {
		r.mu.Lock()
		rn.recs = append(rn.recs, client.RunRecord{Run: rn.id, Status: status, Outcome: outcome})
		r.mu.Unlock()
	}
	return err
}

// fail ends rn as failed, with a note in its thread that mentions the one
// who started it.
func (r *Runner) fail(ctx context.Context, rn *run, reason string) {
	text := "✗ " + rn.def.Name + " failed " + reason
	var mention []string
	if rn.initiator != "" {
		r.mu.Lock()
		who := r.names.ActsFor(rn.initiator)
		text += " (started by @" + r.names.Name(who) + ")"
		r.mu.Unlock()
		mention = append(mention, who)
	}
	note := client.Reply(*rn.card, r.redact(text), mention...)
	note.Tags = append(note.Tags, hopsTag(rn))
	signed, err := r.c.Sign(note)
	if err != nil {
		return
	}
	r.end(ctx, rn, kinds.RunFailed, client.RecordBody{Reason: reason, Publish: &signed})
	if _, err := r.c.Publish(ctx, signed); err != nil {
		r.log.Warn("failure note", "run", rn.id, "err", err)
	}
}

// end publishes rn's final record.
func (r *Runner) end(ctx context.Context, rn *run, status string, b client.RecordBody) {
	b.Reason = r.redact(b.Reason)
	if err := r.record(ctx, rn, rn.card.ID, status, nil, "", b); err != nil {
		r.log.Warn("final record", "run", rn.id, "err", err)
		return
	}
	r.mu.Lock()
	rn.final = status
	r.mu.Unlock()
	r.log.Info("run "+status, "run", rn.id, "workflow", rn.def.Name, "reason", b.Reason)
}

func (r *Runner) nameOf(pk string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.names.Name(pk)
}
