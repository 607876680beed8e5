package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// WorkflowAddress is the coordinate of a workflow definition:
// "30460:<author>:<name>", the a tag of its runs' events.
func WorkflowAddress(author, name string) string {
	return kinds.Address{Kind: kinds.WorkflowDef, PubKey: author, D: name}.String()
}

// Address is the workflow's coordinate.
func (w Workflow) Address() string { return WorkflowAddress(w.Author, w.Name) }

// Enabled reports whether a definition event runs: a ["enabled", "false"]
// tag (hive workflow disable) stops it until it is enabled or applied again.
func Enabled(def nostr.Event) bool { return tagOf(def, "enabled") != "false" }

// The trigger types of a run claim's trigger tag.
const (
	TriggerMessage  = "message"
	TriggerReaction = "reaction"
	TriggerSchedule = "schedule"
	TriggerWebhook  = "webhook"
	TriggerManual   = "manual"
)

// RunClaim is the claim of the run a trigger starts (spec/workflows.md,
// "Exactly once"): signed by runner (hex), dated at the trigger's time,
// with fixed tags and no content, so that every attempt to claim one
// trigger is the same event, and the hub stores it once. Its id is the
// run's id. ref is the trigger's event id, or a schedule slot's id.
func RunClaim(runner, channel, address, trigger, ref string, at nostr.Timestamp, hops int) nostr.Event {
	return kinds.RunClaimEvent(runner, channel, address, trigger, ref, at, hops)
}

// HopsOf is an event's hops tag: how many automated steps (an agent's
// reply, a workflow's post) led to it; 0 without the tag.
func HopsOf(ev nostr.Event) int {
	n, _ := strconv.Atoi(tagOf(ev, "hops"))
	return max(n, 0)
}

// RunRequest asks the runner of the workflow at address (in channel) for a
// manual run with inputs. The run's id is the claim of this request.
func RunRequest(channel, address string, inputs map[string]any) nostr.Event {
	if inputs == nil {
		inputs = map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"inputs": inputs})
	return ev(kinds.RunRequest, string(b), nostr.Tag{"h", channel}, nostr.Tag{"a", address})
}

// CancelRequest asks the runner to cancel the run with id run.
func CancelRequest(channel, address, run string) nostr.Event {
	return ev(kinds.RunRequest, "", nostr.Tag{"h", channel}, nostr.Tag{"a", address}, nostr.Tag{"cancel", run})
}

// RunRecord is one record of a run (kind 40461) as surfaces read it.
type RunRecord struct {
	Run       string `json:"run"`
	Workflow  string `json:"workflow"` // the definition's address
	Status    string `json:"status"`   // kinds.RunStarted, ...
	Step      string `json:"step,omitempty"`
	Index     int    `json:"index,omitempty"` // the step's number, from 1
	Of        int    `json:"of,omitempty"`    // the steps of the run
	Outcome   string `json:"outcome,omitempty"`
	By        string `json:"by,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Until     int64  `json:"until,omitempty"` // a wait's end, unix seconds
	Ms        int64  `json:"ms,omitempty"`    // a finished run's duration
	Card      string `json:"card"`
	Runner    string `json:"runner"`
	ID        string `json:"id"`
	CreatedAt int64  `json:"created_at"`
}

// RecordBody is a run record's content.
type RecordBody struct {
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"`
	Until  int64  `json:"until,omitempty"`
	Ms     int64  `json:"ms,omitempty"`
	Text   string `json:"text,omitempty"` // a step's output
	ID     string `json:"id,omitempty"`   // the event a step published
	// HTTPStatus is an http step's answer's status (its body is Text).
	HTTPStatus int `json:"http_status,omitempty"`
	// Publish is the exact signed event a step is about to publish: after a
	// crash it is sent again, the same id, so nothing posts twice.
	Publish *nostr.Event `json:"publish,omitempty"`
	// The started record: the definition version and its YAML, the trigger
	// and the inputs the run goes on with whatever happens to the definition.
	Version    string          `json:"version,omitempty"`
	Definition string          `json:"definition,omitempty"`
	Trigger    json.RawMessage `json:"trigger,omitempty"`
	Inputs     map[string]any  `json:"inputs,omitempty"`
	Initiator  string          `json:"initiator,omitempty"`
	Hops       int             `json:"hops,omitempty"`
	// A waiting record of an approval gate or an ask_agent step: what it
	// waits for (kinds.WaitApproval, kinds.WaitAgent), in words for the
	// badge, and the event it waits on (the request, the mention).
	For       string   `json:"for,omitempty"`
	Who       string   `json:"who,omitempty"`
	Request   string   `json:"request,omitempty"`
	Approvers []string `json:"approvers,omitempty"` // hex keys, resolved when the step started
	Min       int      `json:"min,omitempty"`
	AllowSelf bool     `json:"allow_self,omitempty"`
	Agent     string   `json:"agent,omitempty"` // hex
	// Decisions (approved, denied, ignored): the reaction, the approvers
	// who approved, the decider's note; a step's approved says how a gate
	// ended (false: denied or timed out with on_timeout: deny).
	Reaction  string   `json:"reaction,omitempty"`
	Approvals []string `json:"approvals,omitempty"`
	Note      string   `json:"note,omitempty"`
	Approved  bool     `json:"approved,omitempty"`
}

// ParseRunRecord reads a 40461; ok is false for anything else.
func ParseRunRecord(ev nostr.Event) (RunRecord, RecordBody, bool) {
	var b RecordBody
	if ev.Kind != kinds.RunRecord || !kinds.ValidRunStatus(tagOf(ev, "status")) {
		return RunRecord{}, b, false
	}
	json.Unmarshal([]byte(ev.Content), &b)
	r := RunRecord{Run: tagOf(ev, kinds.RunTag), Workflow: tagOf(ev, "a"), Status: tagOf(ev, "status"), Outcome: tagOf(ev, "outcome"),
		By: b.By, Reason: b.Reason, Until: b.Until, Ms: b.Ms, Card: tagOf(ev, "e"), Runner: ev.PubKey, ID: ev.ID, CreatedAt: int64(ev.CreatedAt)}
	if t := ev.Tags.Find("step"); len(t) >= 4 {
		r.Step = t[1]
		r.Index, _ = strconv.Atoi(t[2])
		r.Of, _ = strconv.Atoi(t[3])
	}
	return r, b, true
}

// RunIDOf is the id of the run a manual run request starts: its claim's
// id, which any reader can compute (spec/workflows.md, "Exactly once").
func RunIDOf(w Workflow, request nostr.Event) string {
	return RunClaim(w.Runner, w.Channel, w.Address(), TriggerManual, request.ID, request.CreatedAt, HopsOf(request)+1).ID
}

// WaitRun follows the records of run (by runner) until a final one, which
// it returns; each record seen first goes to each (nil: none).
func (c *Client) WaitRun(ctx context.Context, run, runner string, each func(RunRecord)) (RunRecord, error) {
	sub, err := c.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{runner}, Tags: nostr.TagMap{kinds.RunTag: {run}}})
	if err != nil {
		return RunRecord{}, err
	}
	defer sub.Close()
	for {
		select {
		case <-ctx.Done():
			return RunRecord{}, ctx.Err()
		case ev, ok := <-sub.Events():
			if !ok {
				return RunRecord{}, sub.Err()
			}
			rec, _, ok := ParseRunRecord(ev)
			if !ok {
				continue
			}
			if each != nil {
				each(rec)
			}
			if kinds.RunFinal(rec.Status) {
				return rec, nil
			}
		}
	}
}

// Republished is w's definition event again, enabled or not: a new version
// (hive workflow enable and disable), which also ends a runner's pause of
// the old one. Only w's author may publish it (addressable by author). It
// is dated after w, even when w is of this second.
func (w Workflow) Republished(enabled bool) nostr.Event {
	ev := WorkflowEvent(w.Channel, w.Name, w.Runner, w.Source)
	if ev.CreatedAt <= nostr.Timestamp(w.CreatedAt) { // a version within the same second
		ev.CreatedAt = nostr.Timestamp(w.CreatedAt) + 1
	}
	return w.toggled(ev, enabled)
}

// RepublishedNow is Republished signed no earlier than now: it waits
// (at most a second) until the clock is past w's version, so that the new
// version is newer without a created_at in the future. A future version
// would make the runner pass over a trigger posted before it (a message
// older than the version it runs), such as one sent right after enable.
func (w Workflow) RepublishedNow(ctx context.Context, enabled bool) (nostr.Event, error) {
	wait := time.NewTimer(time.Until(time.Unix(w.CreatedAt+1, 0)))
	defer wait.Stop()
	select {
	case <-wait.C:
	case <-ctx.Done():
		return nostr.Event{}, ctx.Err()
	}
	return w.Republished(enabled), nil
}

func (w Workflow) toggled(ev nostr.Event, enabled bool) nostr.Event {
	if !enabled {
		ev.Tags = append(ev.Tags, nostr.Tag{"enabled", "false"})
	}
	return ev
}

// Deletion removes w's definition: its author's kind 5 (by address and
// event), or a channel admin's 9005 for another's.
func (w Workflow) Deletion(by string) nostr.Event {
	if by == w.Author {
		return ev(kinds.Deletion, "", nostr.Tag{"a", w.Address()}, nostr.Tag{"e", w.Event}, nostr.Tag{"k", strconv.Itoa(kinds.WorkflowDef)})
	}
	return ev(kinds.DeleteInChannel, "", nostr.Tag{"h", w.Channel}, nostr.Tag{"e", w.Event})
}

// Run is what the log says of one run: its claim and started record.
type Run struct {
	ID        string `json:"run"`
	Workflow  string `json:"workflow"` // the definition's address
	Channel   string `json:"channel"`
	Runner    string `json:"runner"`
	Initiator string `json:"initiator,omitempty"`
	Final     string `json:"final,omitempty"` // its final status, "" while it goes on
	// roles are the channel's members' roles, for MayCancel
	roles   map[string]string
	author  string // the definition's author, and the initiator, as members (a device as its owner)
	starter string
}

// Run reads run id's claim and records; a run the member cannot see, or
// none, is not found.
func (c *Client) Run(ctx context.Context, id string) (Run, error) {
	claims, err := c.Query(ctx, nostr.Filter{IDs: []string{id}, Kinds: []int{kinds.RunClaim}})
	if err != nil {
		return Run{}, err
	}
	if len(claims) == 0 {
		return Run{}, wrap(ErrNotFound, fmt.Errorf("no run %s in the channels you are in (give the whole id, as hive workflow run printed it)", id))
	}
	cl := claims[0]
	r := Run{ID: id, Workflow: tagOf(cl, "a"), Channel: tagOf(cl, "h"), Runner: cl.PubKey}
	recs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{cl.PubKey}, Tags: nostr.TagMap{kinds.RunTag: {id}}, Limit: 5000})
	if err != nil {
		return r, err
	}
	for _, ev := range recs {
		rec, b, ok := ParseRunRecord(ev)
		switch {
		case !ok:
		case rec.Status == kinds.RunStarted:
			r.Initiator = b.Initiator
		case kinds.RunFinal(rec.Status):
			r.Final = rec.Status
		}
	}
	if a, err := kinds.ParseAddress(r.Workflow); err == nil {
		if r.author, err = c.ActsAs(ctx, a.PubKey); err != nil {
			return r, err
		}
	}
	if r.starter, err = c.ActsAs(ctx, r.Initiator); err != nil {
		return r, err
	}
	chans, err := c.channels(ctx, []string{r.Channel})
	if err == nil && len(chans) == 1 {
		r.roles = chans[0].Members
	}
	return r, err
}

// MayCancel says whether pk (a member key: a device's owner, see ActsAs)
// may cancel the run: the workflow's author, a channel owner or admin, or
// the one who started it (a device counting as its owner on either side).
func (r Run) MayCancel(pk string) error {
	role := r.roles[pk]
	if pk == r.author || pk == r.starter || role == "owner" || role == "admin" {
		return nil
	}
	return fmt.Errorf("only the workflow's author, the channel's owners and admins, or the one who started run %s may cancel it", r.ID[:8])
}
