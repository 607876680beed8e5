package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// approval starts an approval step (spec/workflows.md, "Approval gates"):
// the approvers resolved to keys now, the request signed, its waiting
// record (holding the request, the approvers and the end), the request
// published; then the wait for decisions.
func (r *Runner) approval(ctx context.Context, rn *run, st *workflow.Step, vals expression.Values) (bool, error) {
	a := st.Approval
	g, err := r.resolveGate(rn, st)
	if err != nil {
		return r.outcome(ctx, rn, st, err, "", "")
	}
	if n := len(g.Eligible()); n < g.Min {
		return r.outcome(ctx, rn, st, fmt.Errorf("no one can approve: the gate needs %d approvals and %d approvers may give one (%s; the one who started the run does not count unless allow_self)", g.Min, n, g.Who), "", "")
	}
	msg := ""
	if a.Message.Template != nil {
		if msg, err = a.Message.Template.Render(vals); err != nil {
			return r.outcome(ctx, rn, st, fmt.Errorf("message: %v", err), "", "")
		}
	}
	until := r.now().Add(a.Timeout)
	text := fmt.Sprintf("🔐 Approval needed for %s (run %s): %s\nApprovers: %s; react %s to approve or %s to deny, by %s (or: hive workflow approve %s)",
		rn.def.Name, rn.id[:8], msg, r.mentionWords(g.Approvers), client.ApproveEmoji, client.DenyEmoji, until.UTC().Format("2006-01-02 15:04 UTC"), rn.id)
	if g.Min > 1 {
		text += fmt.Sprintf("; %d approvals needed", g.Min)
	}
	req := client.Reply(*rn.card, text, g.Approvers...)
	req.Tags = append(req.Tags, nostr.Tag{client.ApprovalTag, rn.id, st.ID}, hopsTag(rn))
	signed, err := r.c.Sign(req)
	if err != nil {
		return false, err
	}
	g.Request, g.Until = signed.ID, until.Unix()
	b := client.RecordBody{For: kinds.WaitApproval, Who: g.Who, Request: g.Request, Approvers: g.Approvers, Min: g.Min, AllowSelf: g.AllowSelf,
		Until: g.Until, Publish: &signed}
	return r.waiting(ctx, rn, st, b, true, func(mb *mailbox) (bool, error) { return r.gateWait(ctx, rn, st, g, mb) })
}

// resumeApproval goes on with a gate whose waiting record b a restart
// found: the request sent again (the same id), the decisions given while
// the runner was down read from the hub, the wait for the time that remains.
func (r *Runner) resumeApproval(ctx context.Context, rn *run, st *workflow.Step, b client.RecordBody) (bool, error) {
	g, _ := client.GateOf(client.RunRecord{Run: rn.id, Status: kinds.RunWaiting, Step: st.ID, Runner: r.me}, b, r.actsFor(rn.initiator))
	return r.waiting(ctx, rn, st, b, false, func(mb *mailbox) (bool, error) { return r.gateWait(ctx, rn, st, g, mb) })
}

// resolveGate resolves a step's approvers to the keys of people, and says
// who they are in words ("carol, channel admins").
func (r *Runner) resolveGate(rn *run, st *workflow.Step) (client.Gate, error) {
	a := st.Approval
	g := client.Gate{Run: rn.id, Step: st.ID, Channel: rn.channel, Runner: r.me, Min: a.Min, AllowSelf: a.AllowSelf}
	author := ""
	if ad, err := kinds.ParseAddress(rn.address); err == nil {
		author = ad.PubKey
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g.Initiator = r.names.ActsFor(rn.initiator)
	var who []string
	add := func(pk string) {
		if !slices.Contains(g.Approvers, pk) {
			g.Approvers = append(g.Approvers, pk)
		}
	}
	for _, spec := range a.Approvers {
		switch spec {
		case "owner":
			add(author)
			who = append(who, r.names.Name(author))
		case "channel-admins", "channel-owners":
			role := strings.TrimSuffix(strings.TrimPrefix(spec, "channel-"), "s")
			for pk, rl := range r.chans[rn.channel].Members {
				if rl == role && !r.names.IsAgent(pk) {
					add(pk)
				}
			}
			who = append(who, strings.ReplaceAll(spec, "-", " "))
		default:
			pk, err := identity.ParsePublicKey(spec)
			if err != nil {
				if pk, err = client.ResolveName(r.names, spec); err != nil {
					return g, fmt.Errorf("approver %s: %v", spec, err)
				}
			}
			if r.names.IsAgent(pk) {
				return g, fmt.Errorf("approver %s is an agent: agents never approve; name a person", spec)
			}
			pk = r.names.ActsFor(pk)
			add(pk)
			who = append(who, r.names.Name(pk))
		}
	}
	slices.Sort(g.Approvers)
	g.Who = strings.Join(who, ", ")
	return g, nil
}

// mentionWords are approvers as @names, for the request's text.
func (r *Runner) mentionWords(keys []string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, k := range keys {
		out = append(out, "@"+r.names.Name(k))
	}
	return strings.Join(out, ", ")
}

func (r *Runner) actsFor(pk string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.names.ActsFor(pk)
}

// gateState is what a gate has seen: the reactions decided on, the
// approvals that count (by member, with the reaction and its signer).
type gateState struct {
	g         client.Gate
	handled   map[string]bool
	approvals []approvalBy
}

type approvalBy struct{ who, reaction, signer, note string }

// gateWait waits for the gate's decision: the reactions the hub holds on
// the request first (given while the runner was down, too), then those
// that come, until the first eligible deny, min eligible approvals, the
// end (on_timeout), or a cancel.
func (r *Runner) gateWait(ctx context.Context, rn *run, st *workflow.Step, g client.Gate, mb *mailbox) (bool, error) {
	gs := &gateState{g: g, handled: map[string]bool{}}
	if done, ok, err := r.gateRecords(ctx, rn, st, gs); done {
		return ok, err
	}
	return r.waitOn(ctx, rn, mb, nostr.Filter{Kinds: []int{kinds.Reaction}, Tags: nostr.TagMap{"e": {g.Request}}, Limit: 5000}, g.Until,
		func(ev nostr.Event) (bool, bool, error) { return r.consider(ctx, rn, st, gs, ev) },
		func() (bool, error) { return r.gateTimeout(ctx, rn, st) })
}

// gateRecords reads the gate's own records: the reactions already decided
// on (their thread notes sent again: the same ids), and a decision
// recorded before a crash, which ends the step as it said.
func (r *Runner) gateRecords(ctx context.Context, rn *run, st *workflow.Step, gs *gateState) (bool, bool, error) {
	evs, err := r.c.Query(ctx, nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{r.me}, Tags: nostr.TagMap{kinds.RunTag: {rn.id}}, Limit: 5000})
	if err != nil {
		return true, false, err
	}
	for _, ev := range evs {
		rec, b, ok := client.ParseRunRecord(ev)
		if !ok || rec.Step != st.ID || b.Reaction == "" {
			continue
		}
		gs.handled[b.Reaction] = true
		switch rec.Status {
		case kinds.RunIgnored:
			if b.Publish != nil {
				r.republish(ctx, *b.Publish)
			}
		case kinds.RunApproved:
			ok, err := r.gateOutcome(ctx, rn, st, expression.StepResult{Outcome: kinds.StepSuccess, ID: gs.g.Request, Approved: true, By: r.nameOf(b.By), Note: b.Note}, b.By, "")
			return true, ok, err
		case kinds.RunDenied:
			ok, err := r.gateOutcome(ctx, rn, st, expression.StepResult{Outcome: kinds.StepFailed, ID: gs.g.Request, By: r.nameOf(b.By), Note: b.Note}, b.By, b.Reason)
			return true, ok, err
		}
	}
	return false, false, nil
}

// consider applies one event to the gate: a reaction on the request that
// decides (✅ or ❌ by an eligible person), is ignored with a record and a
// thread note (by anyone else), or says nothing (another emoji); a
// deletion that withdraws an approval. done: the step ended.
func (r *Runner) consider(ctx context.Context, rn *run, st *workflow.Step, gs *gateState, ev nostr.Event) (done, ok bool, err error) {
	if ev.Kind == kinds.Deletion {
		gs.approvals = slices.DeleteFunc(gs.approvals, func(a approvalBy) bool {
			return a.signer == ev.PubKey && slices.ContainsFunc(ev.Tags, func(t nostr.Tag) bool { return len(t) >= 2 && t[0] == "e" && t[1] == a.reaction })
		})
		return false, false, nil
	}
	e := ev.Tags.FindLast("e")
	if ev.Kind != kinds.Reaction || gs.handled[ev.ID] || len(e) < 2 || e[1] != gs.g.Request || ev.PubKey == r.me {
		return false, false, nil
	}
	gs.handled[ev.ID] = true
	decision := client.Decision(ev.Content)
	if decision == "" {
		return false, false, nil
	}
	r.mu.Lock()
	who, agent := r.names.ActsFor(ev.PubKey), r.names.IsAgent(ev.PubKey)
	why := gs.g.Refusal(who, agent, r.names.Name)
	name := r.names.Name(who)
	r.mu.Unlock()
	note := tagValue(ev, "note")
	emoji := client.ApproveEmoji
	if decision == "deny" {
		emoji = client.DenyEmoji
	}
	if why != "" {
		return false, false, r.ignore(ctx, rn, st, ev, who, fmt.Sprintf("%s from %s ignored: %s", emoji, name, why))
	}
	b := client.RecordBody{By: who, Reaction: ev.ID, Note: note}
	if decision == "deny" {
		b.Reason = "denied by " + name
		if note != "" {
			b.Reason += ": " + note
		}
		if err := r.record(ctx, rn, rn.card.ID, kinds.RunDenied, st, "", b); err != nil {
			return true, false, err
		}
		ok, err := r.gateOutcome(ctx, rn, st, expression.StepResult{Outcome: kinds.StepFailed, ID: gs.g.Request, By: name, Note: note}, who, b.Reason)
		return true, ok, err
	}
	if slices.ContainsFunc(gs.approvals, func(a approvalBy) bool { return a.who == who }) {
		return false, false, nil // one person approves once, from any device
	}
	gs.approvals = append(gs.approvals, approvalBy{who: who, reaction: ev.ID, signer: ev.PubKey, note: note})
	if len(gs.approvals) < gs.g.Min {
		return false, false, nil
	}
	var names []string
	for _, a := range gs.approvals {
		b.Approvals = append(b.Approvals, a.who)
		names = append(names, r.nameOf(a.who))
	}
	b.Reason = "approved by " + strings.Join(names, ", ")
	if err := r.record(ctx, rn, rn.card.ID, kinds.RunApproved, st, "", b); err != nil {
		return true, false, err
	}
	ok, err = r.gateOutcome(ctx, rn, st, expression.StepResult{Outcome: kinds.StepSuccess, ID: gs.g.Request, Approved: true, By: name, Note: note}, who, "")
	return true, ok, err
}

// ignore records a reaction that does not count, and says so in the run's
// thread, so that nobody believes they decided.
func (r *Runner) ignore(ctx context.Context, rn *run, st *workflow.Step, ev nostr.Event, who, reason string) error {
	note := client.Reply(*rn.card, reason)
	note.Tags = append(note.Tags, hopsTag(rn))
	signed, err := r.c.Sign(note)
	if err != nil {
		return err
	}
	if err := r.record(ctx, rn, rn.card.ID, kinds.RunIgnored, st, "", client.RecordBody{By: who, Reaction: ev.ID, Reason: reason, Publish: &signed}); err != nil {
		return err
	}
	r.log.Info("approval ignored", "run", rn.id, "reason", reason)
	return r.republish(ctx, signed)
}

// gateTimeout ends a gate nobody decided, per on_timeout: fail (the
// step fails), deny (approved is false, the run goes on), continue
// (approved by nobody, the run goes on).
func (r *Runner) gateTimeout(ctx context.Context, rn *run, st *workflow.Step) (bool, error) {
	a := st.Approval
	after := "approval timed out after " + workflow.Human(a.Timeout)
	switch a.OnTimeout {
	case "deny":
		if err := r.record(ctx, rn, rn.card.ID, kinds.RunDenied, st, "", client.RecordBody{Reason: after + " (on_timeout: deny)"}); err != nil {
			return false, err
		}
		return r.gateOutcome(ctx, rn, st, expression.StepResult{Outcome: kinds.StepSuccess}, "", "")
	case "continue":
		if err := r.record(ctx, rn, rn.card.ID, kinds.RunApproved, st, "", client.RecordBody{Reason: after + " (on_timeout: continue): approved by nobody"}); err != nil {
			return false, err
		}
		return r.gateOutcome(ctx, rn, st, expression.StepResult{Outcome: kinds.StepSuccess, Approved: true}, "", "")
	}
	return r.gateOutcome(ctx, rn, st, expression.StepResult{Outcome: kinds.StepFailed}, "", after)
}

// gateOutcome records how a gate ended (its step's outcome, with approved,
// by and note for the steps after it); a failure (reason) fails the step.
func (r *Runner) gateOutcome(ctx context.Context, rn *run, st *workflow.Step, res expression.StepResult, by, reason string) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	rn.steps[st.ID] = res
	b := client.RecordBody{ID: res.ID, Approved: res.Approved, By: by, Who: res.By, Note: res.Note, Reason: reason}
	if err := r.record(ctx, rn, rn.card.ID, kinds.RunStep, st, res.Outcome, b); err != nil {
		return false, err
	}
	if reason == "" {
		return true, nil
	}
	return st.ContinueOnError, errors.New(reason)
}
