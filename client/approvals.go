package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// The reactions that decide an approval request (spec/workflows.md,
// "Approval gates"): ✅ or + approves, ❌ or - denies.
const (
	ApproveEmoji = "✅"
	DenyEmoji    = "❌"
)

// Decision reads a reaction's content: "approve", "deny", or "" (any other
// emoji decides nothing).
func Decision(emoji string) string {
	switch emoji {
	case ApproveEmoji, "+", "":
		return "approve"
	case DenyEmoji, "-":
		return "deny"
	}
	return ""
}

// ApprovalTag names the tag of an approval request: ["approval", run, step],
// what surfaces draw their Approve and Deny buttons on.
const ApprovalTag = "approval"

// Gate is an open approval gate, as its waiting record states it: who may
// decide (resolved to keys when the step started), how many approvals it
// takes, and the request the decisions react on.
type Gate struct {
	Run       string   `json:"run"`
	Step      string   `json:"step"`
	Request   string   `json:"request"` // the request message's id
	Channel   string   `json:"channel"`
	Runner    string   `json:"runner"`
	Approvers []string `json:"approvers"` // hex keys (people: never agents)
	Who       string   `json:"who"`       // the approvers in words ("carol, channel admins")
	Min       int      `json:"min"`
	AllowSelf bool     `json:"allow_self"`
	Initiator string   `json:"initiator,omitempty"` // the member who started the run
	Until     int64    `json:"until"`
}

// Refusal says why member who (the key a signer acts for: a paired
// device's owner; agent when the signer is an agent) may not decide g, ""
// when it may. name spells a key.
func (g Gate) Refusal(who string, agent bool, name func(string) string) string {
	switch {
	case agent:
		return "agents never decide approvals"
	case who == g.Initiator && !g.AllowSelf && slices.Contains(g.Approvers, who):
		return name(who) + " started the run, and allow_self is false"
	case !slices.Contains(g.Approvers, who):
		return "not an approver (approvers: " + g.Who + ")"
	}
	return ""
}

// Eligible are the approvers who may decide: the one who started the run
// is left out unless allow_self.
func (g Gate) Eligible() []string {
	var out []string
	for _, k := range g.Approvers {
		if k != g.Initiator || g.AllowSelf {
			out = append(out, k)
		}
	}
	return out
}

// GateOf reads a waiting record's gate (ok false: it waits for no approval).
func GateOf(rec RunRecord, b RecordBody, initiator string) (Gate, bool) {
	if rec.Status != kinds.RunWaiting || b.For != kinds.WaitApproval || b.Request == "" {
		return Gate{}, false
	}
	g := Gate{Run: rec.Run, Step: rec.Step, Request: b.Request, Runner: rec.Runner, Approvers: b.Approvers, Who: b.Who,
		Min: max(b.Min, 1), AllowSelf: b.AllowSelf, Initiator: initiator, Until: b.Until}
	if b.Publish != nil {
		g.Channel = tagOf(*b.Publish, "h")
	}
	return g, true
}

// ErrNoGate: nothing in the run waits for an approval.
var ErrNoGate = errors.New("no approval waiting")

// OpenGate is the approval gate run id waits at: its newest waiting record
// for an approval with nothing after it for that step (no decision, no
// outcome, no end of the run). ErrNotFound (wrapping ErrNoGate) when none.
func (c *Client) OpenGate(ctx context.Context, id string) (Gate, error) {
	r, err := c.Run(ctx, id)
	if err != nil {
		return Gate{}, err
	}
	evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{r.Runner}, Tags: nostr.TagMap{kinds.RunTag: {id}}, Limit: 5000})
	if err != nil {
		return Gate{}, err
	}
	sort.Slice(evs, func(i, j int) bool { return kinds.AtMillis(&evs[i]) < kinds.AtMillis(&evs[j]) })
	var open *Gate
	for _, ev := range evs {
		rec, b, ok := ParseRunRecord(ev)
		if !ok {
			continue
		}
		if g, ok := GateOf(rec, b, r.Initiator); ok {
			open = &g
			continue
		}
		if open != nil && rec.Status != kinds.RunIgnored && (rec.Step != open.Step || rec.Status != kinds.RunWaiting) {
			open = nil
		}
	}
	if open == nil {
		return Gate{}, wrap(ErrNotFound, fmt.Errorf("run %s waits for no approval now: %w", id[:8], ErrNoGate))
	}
	return *open, nil
}
