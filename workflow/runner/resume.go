package runner

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// rebuild gives a claim without a started record (the runner stopped
// right after claiming) what its trigger said: the definition as it is
// now, the trigger's event read again.
func (r *Runner) rebuild(ctx context.Context, rn *run) error {
	r.mu.Lock()
	df := r.defs[rn.address]
	r.mu.Unlock()
	if df == nil || df.d == nil {
		return errors.New("its workflow is gone or does not validate")
	}
	rn.version, rn.source, rn.def = df.ev.ID, df.ev.Content, df.d
	if rn.trigger == client.TriggerSchedule {
		rn.values = expression.Trigger{Type: client.TriggerSchedule, ID: rn.ref, At: rn.claim.CreatedAt.Time(), Mentions: []string{},
			Channel: expression.Channel{ID: rn.channel, Name: r.channelName(rn.channel)}}
		return nil
	}
	evs, err := r.c.Query(ctx, nostr.Filter{IDs: []string{rn.ref}})
	if err != nil {
		return err
	}
	if len(evs) == 0 {
		return errors.New("its trigger event " + rn.ref + " is gone")
	}
	ev := evs[0]
	r.mu.Lock()
	defer r.mu.Unlock()
	rn.initiator = ev.PubKey
	switch rn.trigger {
	case client.TriggerWebhook: // the hub signed it; no person started it
		rn.initiator, rn.values, rn.origin = "", r.deliveryValues(ev), &ev
	case client.TriggerMessage:
		rn.values, rn.origin = r.messageValues(ev, client.TriggerMessage), &ev
	case client.TriggerManual:
		var body struct {
			Inputs map[string]any `json:"inputs"`
		}
		json.Unmarshal([]byte(ev.Content), &body)
		rn.inputs = body.Inputs
		if df.d.On.Manual != nil {
			rn.inputs, _ = workflow.CheckInputs(df.d.On.Manual.Inputs, body.Inputs)
		}
		rn.values, rn.origin = expression.Trigger{Type: client.TriggerManual, ID: ev.ID, Author: r.author(ev.PubKey), At: ev.CreatedAt.Time(),
			Mentions: []string{}, Channel: expression.Channel{ID: rn.channel, Name: r.chans[rn.channel].Name}}, &ev
	case client.TriggerReaction:
		e := ev.Tags.FindLast("e")
		if len(e) < 2 {
			return errors.New("its reaction names no row")
		}
		r.mu.Unlock()
		ts, err := r.c.Query(ctx, nostr.Filter{IDs: []string{e[1]}})
		r.mu.Lock()
		if err != nil || len(ts) == 0 {
			return errors.New("its reaction's row is gone")
		}
		t := ts[0]
		rn.values, rn.origin = r.reactionValues(ev, t), &t
	}
	return nil
}

func (r *Runner) channelName(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.chans[id].Name
}

// republish sends an event a record holds again: the same id, so the hub
// stores it at most once (a duplicate answer is success).
func (r *Runner) republish(ctx context.Context, ev nostr.Event) error {
	_, err := r.c.Publish(ctx, ev)
	var re *client.RefusedError
	if errors.As(err, &re) && re.Prefix == "duplicate" {
		return nil
	}
	return err
}

// waitUntil sleeps until t (the runner's clock) or a cancel; it reports
// who cancelled, if anyone.
func (r *Runner) waitUntil(ctx context.Context, rn *run, t time.Time) string {
	d := t.Sub(r.now())
	if d <= 0 {
		return ""
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return ""
	case by := <-rn.cancel:
		return by
	case <-ctx.Done():
		return ""
	}
}
