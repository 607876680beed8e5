package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/nbd-wtf/go-nostr"
)

// def is a workflow definition bound to the runner: its newest event.
type def struct {
	ev      nostr.Event
	address string
	channel string
	d       *workflow.Definition // nil: it does not validate here
	problem string
	enabled bool
}

// status is the runner's own word on a workflow (kind 30463): paused, and
// which schedule slot is settled.
type status struct {
	Status  string `json:"status"` // active | paused
	Reason  string `json:"reason,omitempty"`
	Version string `json:"version,omitempty"` // the definition event the pause is about
	// Settled is the newest schedule slot (unix seconds) run or recorded
	// as skipped.
	Settled int64 `json:"settled,omitempty"`
	Skipped int   `json:"skipped,omitempty"` // slots skipped after a downtime, newest settled
	at      nostr.Timestamp
}

// Budget: a workflow that starts more runs than this in an hour pauses.
const (
	BudgetRuns   = 30
	budgetWindow = time.Hour
)

// putDef records a definition event (newer than the one known). r.mu held.
func (r *Runner) putDef(ev nostr.Event) {
	addr := client.WorkflowAddress(ev.PubKey, tagValue(ev, "d"))
	if old := r.defs[addr]; old != nil && old.ev.CreatedAt > ev.CreatedAt {
		return
	}
	df := &def{ev: ev, address: addr, channel: tagValue(ev, "h"), enabled: client.Enabled(ev)}
	d, err := workflow.Parse(tagValue(ev, "d"), []byte(ev.Content))
	if err != nil {
		df.problem = err.Error()
	} else {
		df.d = d
	}
	r.defs[addr] = df
	r.log.Info("workflow", "name", tagValue(ev, "d"), "channel", df.channel, "enabled", df.enabled, "version", ev.ID[:8], "problem", df.problem)
}

// dropDef forgets a deleted definition. r.mu held.
func (r *Runner) dropDef(addr string) {
	if df := r.defs[addr]; df != nil {
		delete(r.defs, addr)
		r.log.Info("workflow deleted", "name", tagValue(df.ev, "d"), "channel", df.channel)
	}
}

// active is the definition at addr if it may start a run now, else why not.
// r.mu held.
func (r *Runner) active(addr string) (*def, string) {
	df := r.defs[addr]
	switch {
	case df == nil:
		return nil, "no such workflow bound to this runner"
	case df.d == nil:
		return nil, "the definition does not validate: " + df.problem
	case !df.enabled:
		return nil, "the workflow is disabled (hive workflow enable " + df.d.Name + ")"
	}
	if st := r.statuses[addr]; st.Status == "paused" && st.Version == df.ev.ID {
		return nil, "the workflow is paused: " + st.Reason
	}
	return df, ""
}

// runsLastHour counts the runs addr started in the budget window, since
// its last pause (enable starts the count again). r.mu held.
func (r *Runner) runsLastHour(addr string, now time.Time) int {
	from := now.Add(-budgetWindow)
	if st := r.statuses[addr]; st.Status == "paused" && st.at.Time().After(from) {
		from = st.at.Time()
	}
	n := 0
	for _, rn := range r.runs {
		if rn.address == addr && rn.claimedAt().After(from) && !rn.skippedAtStart {
			n++
		}
	}
	return n
}

// setStatus publishes the runner's status of a workflow and keeps it.
func (r *Runner) setStatus(ctx context.Context, df *def, st status) error {
	b, _ := json.Marshal(st)
	ev, err := r.c.Publish(ctx, nostr.Event{Kind: kinds.WorkflowStatus, Content: string(b), Tags: nostr.Tags{{"d", df.address}, {"h", df.channel}, {"a", df.address}}})
	if err != nil {
		return err
	}
	st.at = ev.CreatedAt
	r.mu.Lock()
	r.statuses[df.address] = st
	r.mu.Unlock()
	return nil
}

// pause stops a workflow that ran too often: a status, and one notice in
// its channel saying how to resume it.
func (r *Runner) pause(ctx context.Context, df *def, n int) {
	reason := fmt.Sprintf("%d runs in the last hour (the budget is %d)", n, BudgetRuns)
	r.mu.Lock()
	st := r.statuses[df.address]
	r.mu.Unlock()
	st.Status, st.Reason, st.Version = "paused", reason, df.ev.ID
	if err := r.setStatus(ctx, df, st); err != nil {
		r.log.Warn("pausing", "workflow", df.d.Name, "err", err)
		return
	}
	r.log.Warn("workflow paused", "workflow", df.d.Name, "reason", reason)
	note := client.Message(df.channel, fmt.Sprintf("⏸ workflow %s paused: %s. `hive workflow enable %s` resumes it.", df.d.Name, reason, df.d.Name))
	note.Tags = append(note.Tags, nostr.Tag{"a", df.address}, nostr.Tag{"hops", "1"})
	if _, err := r.c.Publish(ctx, note); err != nil {
		r.log.Warn("pause notice", "workflow", df.d.Name, "err", err)
	}
}

func tagValue(ev nostr.Event, name string) string {
	if t := ev.Tags.Find(name); len(t) >= 2 {
		return t[1]
	}
	return ""
}
