package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// maxAnswer bounds the agent's answer kept as steps.ID.text.
const maxAnswer = 32 << 10

// askAgent starts an ask_agent step (spec/workflows.md, "ask_agent"): a
// mention of the agent in the run's thread, signed and held in the step's
// waiting record, then published; then the wait for the agent's receipt.
func (r *Runner) askAgent(ctx context.Context, rn *run, st *workflow.Step, vals expression.Values) (bool, error) {
	a := st.AskAgent
	keys, err := r.keysOf([]string{a.Agent})
	if err != nil {
		return r.outcome(ctx, rn, st, err, "", "")
	}
	agent := keys[0]
	r.mu.Lock()
	isAgent, name := r.names.IsAgent(agent), r.names.Name(agent)
	r.mu.Unlock()
	if _, err := identity.ParsePublicKey(a.Agent); err != nil {
		name = strings.TrimPrefix(a.Agent, "@") // as the definition names it, for the mention and the badge
	}
	if !isAgent {
		return r.outcome(ctx, rn, st, fmt.Errorf("%s is not an agent: ask_agent asks an agent that hive bridge runs", a.Agent), "", "")
	}
	text, err := a.Text.Template.Render(vals)
	if err != nil {
		return r.outcome(ctx, rn, st, fmt.Errorf("text: %v", err), "", "")
	}
	ev := client.Reply(*rn.card, "@"+name+" "+text, agent)
	ev.Tags = append(ev.Tags, hopsTag(rn))
	signed, err := r.c.Sign(ev)
	if err != nil {
		return false, err
	}
	b := client.RecordBody{For: kinds.WaitAgent, Who: name, Agent: agent, Request: signed.ID, Until: r.now().Add(st.Timeout).Unix(), Publish: &signed}
	return r.waiting(ctx, rn, st, b, true, func(mb *mailbox) (bool, error) { return r.agentWait(ctx, rn, st, b, mb) })
}

// resumeAskAgent goes on with an ask_agent step whose waiting record a
// restart found: the mention sent again (the same id), the receipts the
// hub holds read, the wait for the time that remains.
func (r *Runner) resumeAskAgent(ctx context.Context, rn *run, st *workflow.Step, b client.RecordBody) (bool, error) {
	return r.waiting(ctx, rn, st, b, false, func(mb *mailbox) (bool, error) { return r.agentWait(ctx, rn, st, b, mb) })
}

// agentWait waits for the agent's final receipt on the mention: answered
// (the reply's text is the step's text), failed or not-answered (the step
// fails with the receipt's reason), or none before the end.
func (r *Runner) agentWait(ctx context.Context, rn *run, st *workflow.Step, b client.RecordBody, mb *mailbox) (bool, error) {
	return r.waitOn(ctx, rn, mb, nostr.Filter{Kinds: []int{kinds.Receipt}, Authors: []string{b.Agent}, Tags: nostr.TagMap{"e": {b.Request}}, Limit: 100}, b.Until,
		func(ev nostr.Event) (bool, bool, error) { return r.receipt(ctx, rn, st, b, ev) },
		func() (bool, error) {
			return r.outcome(ctx, rn, st, fmt.Errorf("%s did not answer within %s (is its bridge running? hive who shows it)", b.Who, workflow.Human(st.Timeout)), "", "")
		})
}

// receipt applies one receipt of the agent on the mention; done: the step
// ended.
func (r *Runner) receipt(ctx context.Context, rn *run, st *workflow.Step, b client.RecordBody, ev nostr.Event) (done, ok bool, err error) {
	if ev.Kind != kinds.Receipt || ev.PubKey != b.Agent || tagValue(ev, "e") != b.Request {
		return false, false, nil
	}
	switch tagValue(ev, "status") {
	case "answered":
		reply := tagValue(ev, "q")
		evs, err := r.c.Query(ctx, nostr.Filter{IDs: []string{reply}})
		if err != nil {
			return true, false, err
		}
		if len(evs) == 0 {
			ok, err := r.outcome(ctx, rn, st, fmt.Errorf("%s answered, and its reply %s is gone", b.Who, reply), "", "")
			return true, ok, err
		}
		text := evs[0].Content
		if len(text) > maxAnswer {
			text = text[:maxAnswer]
		}
		ok, err := r.outcome(ctx, rn, st, nil, reply, text)
		return true, ok, err
	case "failed":
		ok, err := r.outcome(ctx, rn, st, errors.New(b.Who+" failed: "+strings.TrimSpace(ev.Content)), "", "")
		return true, ok, err
	case "not-answered":
		why := b.Who + " will not answer the runner: " + strings.TrimSpace(ev.Content)
		if strings.Contains(ev.Content, "answer =") {
			why += fmt.Sprintf("; to let it answer this workflow, its owner adds the runner's npub (%s) to answer in its bridge config", r.keys.Npub())
		}
		ok, err := r.outcome(ctx, rn, st, errors.New(why), "", "")
		return true, ok, err
	}
	return false, false, nil
}
