package runner

import (
	"context"
	"fmt"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// start is a trigger that matched a workflow.
type start struct {
	addr      string
	trigger   string // client.TriggerMessage, ...
	ref       string // the trigger's event id, or a schedule slot's id
	at        nostr.Timestamp
	values    expression.Trigger
	inputs    map[string]any
	origin    *nostr.Event
	initiator string
	hops      int
	refused   string // a manual request refused (run_by, inputs): recorded as skipped
}

// start claims the run a trigger starts, exactly once: the claim is
// deterministic, so a trigger seen again (a restart, the catch-up) is the
// same claim, which the hub already has.
func (r *Runner) start(ctx context.Context, s start) {
	r.mu.Lock()
	df, why := r.active(s.addr)
	if df == nil {
		r.mu.Unlock()
		r.log.Info("trigger ignored", "workflow", s.addr, "reason", why)
		return
	}
	claim := client.RunClaim(r.me, df.channel, s.addr, s.trigger, s.ref, s.at, s.hops+1)
	if _, known := r.runs[claim.ID]; known {
		r.mu.Unlock()
		return
	}
	n := r.runsLastHour(s.addr, r.now())
	r.mu.Unlock()
	if n >= BudgetRuns {
		r.pause(ctx, df, n)
		return
	}
	signed, dup, err := r.c.PublishOnce(ctx, claim)
	if err != nil {
		r.log.Warn("claim refused", "workflow", df.d.Name, "trigger", s.ref, "err", err)
		return
	}
	rn := newRun(signed)
	rn.version, rn.source, rn.def = df.ev.ID, df.ev.Content, df.d
	rn.values, rn.inputs, rn.origin, rn.initiator, rn.hops = s.values, s.inputs, s.origin, s.initiator, s.hops
	r.mu.Lock()
	if _, known := r.runs[rn.id]; known {
		r.mu.Unlock()
		return
	}
	r.runs[rn.id] = rn
	busy, full := "", ""
	if df.d.Concurrency != "single" {
		full = r.queueFull(df, rn.id)
	}
	if df.d.Concurrency == "single" {
		for _, o := range r.runs {
			if o.address == s.addr && o.final == "" && o.id != rn.id {
				busy = o.id
			}
		}
	}
	r.mu.Unlock()
	if dup {
		// claimed before this runner's memory: the log's records decide
		r.log.Info("claim existed", "run", rn.id)
	}
	switch {
	case s.hops >= kinds.MaxHops:
		r.skip(ctx, rn, fmt.Sprintf("the trigger is %d hops from a person (the limit is %d): a loop of automated posts stops here", s.hops, kinds.MaxHops))
	case s.refused != "":
		r.skip(ctx, rn, s.refused)
	case busy != "":
		r.skip(ctx, rn, "already running (run "+busy[:8]+"; concurrency: single)")
	case full != "":
		r.skip(ctx, rn, full)
	default:
		r.log.Info("run claimed", "run", rn.id, "workflow", df.d.Name, "trigger", s.trigger, "ref", s.ref)
		r.launch(ctx, rn)
	}
}

// skip records that a claimed trigger starts no run, on the trigger's
// event (there is no card).
func (r *Runner) skip(ctx context.Context, rn *run, reason string) {
	rn.skippedAtStart = true
	target := rn.ref
	if rn.origin != nil {
		target = rn.origin.ID
	}
	if rn.trigger == client.TriggerSchedule {
		return // no event to record it on: the status's count says it
	}
	r.log.Info("run skipped", "run", rn.id, "reason", reason)
	if err := r.record(ctx, rn, target, kinds.RunSkipped, nil, "", client.RecordBody{Reason: reason}); err != nil {
		r.log.Warn("skip record", "run", rn.id, "err", err)
	}
	r.mu.Lock()
	rn.final = kinds.RunSkipped
	r.mu.Unlock()
}

// lane orders a workflow's runs: single and queue one at a time, in
// claim order; parallel up to 5 at once.
type lane struct {
	slots chan struct{}
}

// Concurrency bounds.
const (
	MaxParallel = 5
	MaxQueued   = 10
)

// launch runs rn on its own goroutine: its card and started record at
// once, then its steps once its workflow's lane has room.
func (r *Runner) launch(ctx context.Context, rn *run) {
	r.mu.Lock()
	l := r.lanes[rn.address]
	if l == nil {
		n := 1
		if df := r.defs[rn.address]; df != nil && df.d != nil && df.d.Concurrency == "parallel" {
			n = MaxParallel
		}
		l = &lane{slots: make(chan struct{}, n)}
		r.lanes[rn.address] = l
	}
	r.mu.Unlock()
	go func() {
		if !r.prepare(ctx, rn) {
			return
		}
		select {
		case l.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-l.slots }()
		r.exec(ctx, rn)
	}()
}
