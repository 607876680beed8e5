package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/nbd-wtf/go-nostr"
)

// waiters are the steps that wait on an event (an approval request's
// reactions, an ask_agent mention's receipts), by that event's id. The
// follow loop hands them what arrives live; each step reads what the hub
// stored itself, after registering, so nothing falls in between.
type waiters struct {
	mu sync.Mutex // guards m
	m  map[string]*mailbox
}

// mailbox queues events for one waiting step; kick says there are some.
type mailbox struct {
	mu   sync.Mutex // guards evs
	evs  []nostr.Event
	kick chan struct{}
}

func (w *waiters) add(id string) *mailbox {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]*mailbox{}
	}
	mb := &mailbox{kick: make(chan struct{}, 1)}
	w.m[id] = mb
	return mb
}

func (w *waiters) remove(id string) {
	w.mu.Lock()
	delete(w.m, id)
	w.mu.Unlock()
}

// deliver hands ev to the step waiting on what it is about: a reaction
// or a receipt by its e tag; a deletion to every waiting step (it may
// withdraw a reaction that counted).
func (w *waiters) deliver(ev nostr.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev.Kind {
	case kinds.Reaction, kinds.Receipt:
		if e := ev.Tags.FindLast("e"); len(e) >= 2 && w.m[e[1]] != nil {
			w.m[e[1]].put(ev)
		}
	case kinds.Deletion:
		for _, mb := range w.m {
			mb.put(ev)
		}
	}
}

func (mb *mailbox) put(ev nostr.Event) {
	mb.mu.Lock()
	mb.evs = append(mb.evs, ev)
	mb.mu.Unlock()
	select {
	case mb.kick <- struct{}{}:
	default:
	}
}

// take empties the mailbox.
func (mb *mailbox) take() []nostr.Event {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	evs := mb.evs
	mb.evs = nil
	return evs
}

// waiting sends the event a waiting step waits on (b.Publish, signed and
// named by b.Request) and waits with wait: a fresh step records b first
// (so that a restart sends the same event again), a resumed one found it.
func (r *Runner) waiting(ctx context.Context, rn *run, st *workflow.Step, b client.RecordBody, fresh bool, wait func(*mailbox) (bool, error)) (bool, error) {
	mb := r.waits.add(b.Request)
	defer r.waits.remove(b.Request)
	if fresh {
		if err := r.record(ctx, rn, rn.card.ID, kinds.RunWaiting, st, kinds.StepRunning, b); err != nil {
			return false, err
		}
	}
	if b.Publish != nil {
		if err := r.republish(ctx, *b.Publish); err != nil {
			if fresh {
				return r.outcome(ctx, rn, st, fmt.Errorf("sending %s: %w", st.Action, err), "", "")
			}
			return false, err
		}
	}
	return wait(mb)
}

// waitOn is a waiting step's loop: each event the hub holds (f: what was
// stored while nobody waited, too), oldest first, then each that comes to
// mb, goes to each until it says the step is done (ok, err: how it ended);
// until (unix seconds on the runner's clock) ends it with late; a cancel
// ends it for exec to record.
func (r *Runner) waitOn(ctx context.Context, rn *run, mb *mailbox, f nostr.Filter, until int64,
	each func(nostr.Event) (done, ok bool, err error), late func() (bool, error)) (bool, error) {
	stored, err := r.c.Query(ctx, f)
	if err != nil {
		return false, err
	}
	slices.SortFunc(stored, func(a, b nostr.Event) int {
		if older(a, b) {
			return -1
		}
		return 1
	})
	for _, ev := range stored {
		if done, ok, err := each(ev); done {
			return ok, err
		}
	}
	timer := time.NewTimer(time.Until(time.Unix(until, 0).Add(-r.opt.ClockOffset)))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case by := <-rn.cancel:
			rn.cancel <- by // exec records the cancel
			return true, nil
		case <-timer.C:
			return late()
		case <-mb.kick:
			for _, ev := range mb.take() {
				if done, ok, err := each(ev); done {
					return ok, err
				}
			}
		}
	}
}
