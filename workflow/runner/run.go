package runner

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// run is one run: what its claim, card and records say. Its goroutine owns
// it once launched; before that (fold, claim) r.mu does.
type run struct {
	id      string
	claim   nostr.Event
	address string
	channel string
	trigger string // the claim's trigger type
	ref     string // and its ref

	// From the started record (or, before one exists, the trigger):
	version   string
	source    string
	def       *workflow.Definition
	values    expression.Trigger
	inputs    map[string]any
	initiator string
	hops      int // the trigger's
	card      *nostr.Event
	origin    *nostr.Event        // the trigger's event (message, reaction target's message, request, delivery)
	hook      *expression.Webhook // a webhook run's delivery, as expressions see it (webhookOf)
	started   time.Time

	steps          map[string]expression.StepResult
	next           int                // the first step without an outcome
	begun          *client.RecordBody // the record of step next, if it began
	final          string             // a final status, "" while open
	pending        *client.RecordBody // the final record's content (its failure note)
	cancel         chan string        // by whom, when hive workflow cancel asks
	recs           []client.RunRecord // every record, oldest first
	skippedAtStart bool               // a claim recorded as skipped: no run counted in budgets
}

func (rn *run) claimedAt() time.Time { return rn.claim.CreatedAt.Time() }

// fold reads the runner's own claims, records and statuses into runs and
// statuses; it returns the open runs (oldest first). r.mu held.
func (r *Runner) fold(evs []nostr.Event) []*run {
	sort.Slice(evs, func(i, j int) bool { return older(evs[i], evs[j]) })
	for _, ev := range evs {
		switch ev.Kind {
		case kinds.RunClaim:
			r.runs[ev.ID] = newRun(ev)
		case kinds.WorkflowStatus:
			var st status
			json.Unmarshal([]byte(ev.Content), &st)
			st.at = ev.CreatedAt
			r.statuses[tagValue(ev, "d")] = st
		}
	}
	for _, ev := range evs {
		if ev.Kind != kinds.RunRecord {
			continue
		}
		rec, body, ok := client.ParseRunRecord(ev)
		if rn := r.runs[rec.Run]; ok && rn != nil {
			rn.apply(rec, body)
		}
	}
	var open []*run
	for _, rn := range r.runs {
		if rn.final == "" && time.Since(rn.claimedAt()) < runMaxAge {
			open = append(open, rn)
		}
	}
	sort.Slice(open, func(i, j int) bool { return older(open[i].claim, open[j].claim) })
	return open
}

// older orders events by time (created_at, then ms tag), then id.
func older(a, b nostr.Event) bool {
	if ta, tb := kinds.AtMillis(&a), kinds.AtMillis(&b); ta != tb {
		return ta < tb
	}
	return a.ID < b.ID
}

func newRun(claim nostr.Event) *run {
	rn := &run{id: claim.ID, claim: claim, address: tagValue(claim, "a"), channel: tagValue(claim, "h"),
		steps: map[string]expression.StepResult{}, cancel: make(chan string, 1)}
	if t := claim.Tags.Find("trigger"); len(t) >= 3 {
		rn.trigger, rn.ref = t[1], t[2]
	}
	rn.hops = max(client.HopsOf(claim)-1, 0)
	return rn
}

// apply folds one record (oldest first) into the run.
func (rn *run) apply(rec client.RunRecord, b client.RecordBody) {
	rn.recs = append(rn.recs, rec)
	switch rec.Status {
	case kinds.RunStarted:
		rn.version, rn.source, rn.inputs, rn.initiator, rn.hops = b.Version, b.Definition, b.Inputs, b.Initiator, b.Hops
		json.Unmarshal(b.Trigger, &rn.values)
		rn.started = time.Unix(rec.CreatedAt, 0)
		if d, err := workflow.Parse("definition", []byte(b.Definition)); err == nil {
			rn.def = d
		}
		rn.card = &nostr.Event{ID: rec.Card}
	case kinds.RunStep, kinds.RunWaiting:
		if rec.Index < 1 {
			return
		}
		switch rec.Outcome {
		case kinds.StepSuccess, kinds.StepFailed, kinds.StepSkipped:
			rn.steps[rec.Step] = expression.StepResult{Outcome: rec.Outcome, Text: b.Text, ID: b.ID, Status: b.HTTPStatus, Body: httpBody(b), JSON: httpJSON(b), Approved: b.Approved, By: b.Who, Note: b.Note}
			rn.next, rn.begun = rec.Index, nil
		default: // running, or waiting
			body := b
			rn.next, rn.begun = rec.Index-1, &body
		}
	default:
		if kinds.RunFinal(rec.Status) {
			rn.final = rec.Status
			if rec.Status == kinds.RunSkipped && len(rn.recs) == 1 {
				rn.skippedAtStart = true
			}
			body := b
			rn.pending = &body
		}
	}
}
