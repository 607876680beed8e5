package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// step runs step rn.next. ok says the run goes on (the step succeeded, was
// skipped, or failed with continue_on_error); err is the failure.
//
// A step that publishes signs its event first and records it (outcome
// running, the event in the record); then it publishes. A runner that
// stops anywhere in between finds the record on restart and publishes the
// same event again: the same id, which the hub stores once.
func (r *Runner) step(ctx context.Context, rn *run) (bool, error) {
	st := &rn.def.Steps[rn.next]
	resumed := rn.begun != nil
	if b := rn.begun; b != nil {
		rn.begun = nil
		switch {
		case b.For == kinds.WaitApproval:
			return r.resumeApproval(ctx, rn, st, *b)
		case b.For == kinds.WaitAgent:
			return r.resumeAskAgent(ctx, rn, st, *b)
		case b.Publish != nil:
			if err := r.republish(ctx, *b.Publish); err != nil {
				return r.outcome(ctx, rn, st, err, "", "")
			}
			return r.outcome(ctx, rn, st, nil, b.Publish.ID, b.Text)
		case b.Until > 0:
			return r.wait(ctx, rn, st, time.Unix(b.Until, 0))
		}
	}
	vals := r.values(rn)
	if st.If != nil {
		x, err := st.If.Program.Eval(vals)
		if err != nil {
			return r.outcome(ctx, rn, st, fmt.Errorf("if: %v", err), "", "")
		}
		if b, _ := x.(bool); !b {
			rn.steps[st.ID] = expression.StepResult{Outcome: kinds.StepSkipped}
			return true, r.record(ctx, rn, rn.card.ID, kinds.RunStep, st, kinds.StepSkipped, client.RecordBody{Reason: "if: " + st.If.Source + " is false"})
		}
	}
	sctx, cancel := context.WithTimeout(ctx, st.Timeout)
	defer cancel()
	switch st.Action {
	case "wait":
		until, err := r.waitEnd(st, vals)
		if err != nil {
			return r.outcome(ctx, rn, st, err, "", "")
		}
		if err := r.record(ctx, rn, rn.card.ID, kinds.RunWaiting, st, kinds.StepRunning, client.RecordBody{Until: until.Unix()}); err != nil {
			return false, err
		}
		return r.wait(ctx, rn, st, until)
	case "http":
		return r.httpStep(ctx, sctx, rn, st, vals, resumed)
	case "approval":
		return r.approval(ctx, rn, st, vals)
	case "ask_agent":
		return r.askAgent(ctx, rn, st, vals)
	}
	ev, text, err := r.build(sctx, rn, st, vals)
	if err != nil {
		return r.outcome(ctx, rn, st, err, "", "")
	}
	ev.Content = r.redact(ev.Content)
	ev.Tags = append(ev.Tags, hopsTag(rn))
	signed, err := r.c.Sign(ev)
	if err != nil {
		return false, err
	}
	if err := r.record(ctx, rn, rn.card.ID, kinds.RunStep, st, kinds.StepRunning, client.RecordBody{Publish: &signed, Text: text}); err != nil {
		return false, err
	}
	crashPoint("before-publish:" + st.ID)
	if err := r.republish(sctx, signed); err != nil {
		return r.outcome(ctx, rn, st, err, "", "")
	}
	crashPoint("after-publish:" + st.ID)
	return r.outcome(ctx, rn, st, nil, signed.ID, text)
}

// outcome records how a step ended and what it leaves for the next ones.
func (r *Runner) outcome(ctx context.Context, rn *run, st *workflow.Step, stepErr error, id, text string) (bool, error) {
	return r.outcomeOf(ctx, rn, st, stepErr, expression.StepResult{ID: id, Text: text}, client.RecordBody{ID: id, Text: text})
}

// outcomeOf is outcome with the step's result and record given.
func (r *Runner) outcomeOf(ctx context.Context, rn *run, st *workflow.Step, stepErr error, res expression.StepResult, b client.RecordBody) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	res.Outcome = kinds.StepSuccess
	if stepErr != nil {
		res.Outcome, b.Reason = kinds.StepFailed, r.redact(stepErr.Error())
	}
	rn.steps[st.ID] = res
	if err := r.record(ctx, rn, rn.card.ID, kinds.RunStep, st, res.Outcome, b); err != nil {
		return false, err
	}
	return stepErr == nil || st.ContinueOnError, stepErr
}

// wait sleeps until the step's end (the remaining time after a restart).
func (r *Runner) wait(ctx context.Context, rn *run, st *workflow.Step, until time.Time) (bool, error) {
	if by := r.waitUntil(ctx, rn, until); by != "" {
		rn.cancel <- by // exec records the cancel
		return true, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	return r.outcome(ctx, rn, st, nil, "", "")
}

func (r *Runner) waitEnd(st *workflow.Step, vals expression.Values) (time.Time, error) {
	if st.Wait.Until == nil {
		return r.now().Add(st.Wait.Duration), nil
	}
	x, err := st.Wait.Until.Eval(vals)
	if err != nil {
		return time.Time{}, fmt.Errorf("until: %v", err)
	}
	t, ok := x.(time.Time)
	if !ok {
		return time.Time{}, fmt.Errorf("until: %v is not a time", x)
	}
	if t.Sub(r.now()) > workflow.MaxDuration {
		return time.Time{}, fmt.Errorf("until: %s is more than 7 days away", t.Format(time.RFC3339))
	}
	return t, nil
}

// build is the event a step publishes, and its text.
func (r *Runner) build(ctx context.Context, rn *run, st *workflow.Step, vals expression.Values) (nostr.Event, string, error) {
	switch st.Action {
	case "post":
		text, err := st.Post.Text.Template.Render(vals)
		if err != nil {
			return nostr.Event{}, "", err
		}
		mentions, err := r.keysOf(st.Post.Mention)
		if err != nil {
			return nostr.Event{}, "", err
		}
		if st.Post.In == "thread" {
			return client.Reply(*rn.card, text, mentions...), text, nil
		}
		return client.Message(rn.channel, text, mentions...), text, nil
	case "dm":
		text, err := st.DM.Text.Template.Render(vals)
		if err != nil {
			return nostr.Event{}, "", err
		}
		to, err := r.keysOf([]string{st.DM.To})
		if err != nil {
			return nostr.Event{}, "", err
		}
		id := client.DMChannelID(r.me, to[0])
		if err := r.republish(ctx, client.DMCreate(id, r.me, to[0])); err != nil {
			return nostr.Event{}, "", fmt.Errorf("opening the DM: %w", err)
		}
		return client.Message(id, text), text, nil
	case "react":
		if rn.origin == nil || rn.origin.Kind != kinds.Message {
			return nostr.Event{}, "", errors.New("react: the run has no triggering message")
		}
		return client.Reaction(*rn.origin, st.React.Emoji), st.React.Emoji, nil
	case "set_topic":
		text, err := st.SetTopic.Text.Template.Render(vals)
		if err != nil {
			return nostr.Event{}, "", err
		}
		return nostr.Event{Kind: kinds.EditMetadata, Tags: nostr.Tags{{"h", rn.channel}, {"about", text}}}, text, nil
	}
	return nostr.Event{}, "", fmt.Errorf("the %s action is not run by this runner yet", st.Action)
}

// keysOf resolves @names and npubs to hex keys.
func (r *Runner) keysOf(names []string) ([]string, error) {
	var out []string
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		if pk, err := identity.ParsePublicKey(n); err == nil {
			out = append(out, pk)
			continue
		}
		pk, err := client.ResolveName(r.names, n)
		if err != nil {
			return nil, err
		}
		out = append(out, pk)
	}
	return out, nil
}
