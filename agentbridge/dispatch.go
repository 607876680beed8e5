package agentbridge

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ainb/hive/kinds"
)

type slotState int

const (
	slotDown     slotState = iota // no process (not yet started, or crashed)
	slotStarting                  // spawning and initializing
	slotReady                     // idle
	slotBusy                      // running a turn
	slotOpen                      // breaker open: not respawned until cooldown
)

// slot is one process place in an agent's pool.
type slot struct {
	idx     int
	state   slotState
	proc    *agentProc
	breaker Breaker
	loaded  map[string]string // channel -> session loaded in this process
	pinned  int               // channels with affinity to this slot
}

// dispatcher owns an agent's queue and its process slots. Its methods run
// on its own goroutine (run), one event at a time (events.go); everyone
// else only hands it events (send, enqueue).
type dispatcher struct {
	events chan event
	closed chan struct{} // closed when run returns

	queue    *Queue
	slots    []*slot
	affinity map[string]int       // channel -> slot
	inFlight map[string][]Mention // channel -> batch being answered
	toldFull map[string]bool      // channel+author told that the queue is full

	log    *slog.Logger
	state  *State
	out    *outbox
	status *statusBoard
	env    map[string]string // the agent's config env, redacted from failure replies

	// start runs a batch's turn on slot s (its process p) away from the
	// dispatcher, which hears of its end as a turnEnded event.
	start func(ctx context.Context, s *slot, p *agentProc, ch string, batch []Mention)
	// spawn starts an agent process (away from the dispatcher).
	spawn func(ctx context.Context) (*agentProc, error)
	// postFailure posts a failure reply to batch (away from the dispatcher).
	postFailure func(ctx context.Context, batch []Mention, why string)
}

func newDispatcher(n int, log *slog.Logger, state *State, out *outbox, status *statusBoard, env map[string]string) *dispatcher {
	d := &dispatcher{events: make(chan event, 1024), closed: make(chan struct{}), queue: NewQueue(), affinity: map[string]int{},
		inFlight: map[string][]Mention{}, toldFull: map[string]bool{}, log: log, state: state, out: out, status: status, env: env}
	for i := 0; i < n; i++ {
		d.slots = append(d.slots, &slot{idx: i, loaded: map[string]string{}})
	}
	return d
}

// turnOutcome is how a turn ended, for the dispatcher.
type turnOutcome int

const (
	turnAnswered turnOutcome = iota // reply posted (or failure reply posted)
	turnCrashed                     // the process died: retry on a fresh one
	turnWedged                      // the process is stuck: killed, reply posted
)

// run handles the dispatcher's events (events.go) one at a time until
// ctx ends.
func (d *dispatcher) run(ctx context.Context) {
	defer close(d.closed)
	for i := range d.slots {
		d.spawnSlot(ctx, d.slots[i], 0)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-d.events:
			d.handle(ctx, ev)
		}
	}
}

// spawnSlot starts a process for s after delay, reporting back to the
// dispatcher.
func (d *dispatcher) spawnSlot(ctx context.Context, s *slot, delay time.Duration) {
	s.state = slotStarting
	s.loaded = map[string]string{}
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		p, err := d.spawn(ctx)
		d.send(processUp{s, p, err})
	}()
}

// processStarted puts a started process in its slot, or counts a failed
// start against the slot's breaker.
func (d *dispatcher) processStarted(ctx context.Context, e processUp) {
	s, p := e.s, e.p
	if e.err != nil {
		d.log.Error("agent process failed to start", "slot", s.idx, "err", e.err)
		d.slotFailed(ctx, s)
		return
	}
	s.proc, s.state = p, slotReady
	d.log.Info("agent process ready", "slot", s.idx, "pid", p.Pid(), "agent", p.info.Name, "version", p.info.Version,
		"loadSession", p.info.LoadSession, "steering", p.info.Steering)
	go func() { <-p.exited; d.send(processExit{s, p}) }()
	d.pump(ctx)
}

// processExited retires a process that died while idle (one that died in
// a turn is the turn's to report).
func (d *dispatcher) processExited(ctx context.Context, e processExit) {
	if s := e.s; s.proc == e.p && s.state == slotReady {
		d.log.Warn("agent process exited while idle", "slot", s.idx, "err", e.p.err)
		s.proc = nil
		d.slotFailed(ctx, s)
	}
}

// slotFailed records a crash in the slot's breaker and schedules a respawn.
func (d *dispatcher) slotFailed(ctx context.Context, s *slot) {
	wait, open := s.breaker.Crash(time.Now())
	if open {
		s.state = slotOpen
		d.log.Error("circuit breaker open: too many crashes", "slot", s.idx, "cooldown", wait)
	}
	d.spawnSlot(ctx, s, wait)
	if open {
		s.state = slotOpen // still respawned after the cooldown (half-open)
	}
	d.pump(ctx)
}

// slotFor picks the process for a channel: its affinity slot if idle (wait
// while it is busy), else the idle slot with the fewest channels.
func (d *dispatcher) slotFor(channel string) *slot {
	if i, ok := d.affinity[channel]; ok {
		switch s := d.slots[i]; s.state {
		case slotReady:
			return s
		case slotBusy:
			return nil
		}
	}
	var best *slot
	for _, s := range d.slots {
		if s.state == slotReady && (best == nil || s.pinned < best.pinned) {
			best = s
		}
	}
	return best
}

// pump starts turns while a channel has work and a process is free. With
// every slot's breaker open, waiting batches get a failure reply.
func (d *dispatcher) pump(ctx context.Context) {
	for {
		ch, batch := d.queue.Next(func(ch string) bool { return d.slotFor(ch) != nil })
		if ch == "" {
			break
		}
		s := d.slotFor(ch)
		if i, ok := d.affinity[ch]; !ok || i != s.idx {
			if ok {
				d.slots[i].pinned--
			}
			d.affinity[ch] = s.idx
			s.pinned++
		}
		s.state = slotBusy
		d.inFlight[ch] = batch
		d.start(ctx, s, s.proc, ch, batch)
	}
	defer d.noteDispatch()
	if d.queue.Len() > 0 && d.allOpen() {
		for {
			ch, batch := d.queue.Next(func(string) bool { return true })
			if ch == "" {
				break
			}
			d.inFlight[ch] = batch
			go func() {
				d.postFailure(ctx, batch, "the agent keeps crashing; its circuit breaker is open. Please re-send later.")
				d.send(failurePosted{ch, batch, false})
			}()
		}
	}
}

func (d *dispatcher) allOpen() bool {
	for _, s := range d.slots {
		if s.state != slotOpen {
			return false
		}
	}
	return true
}

// turnDone updates the slot and the queue after a turn.
func (d *dispatcher) turnDone(ctx context.Context, s *slot, p *agentProc, ch string, batch []Mention, out turnOutcome) {
	switch out {
	case turnAnswered:
		if s.proc == p && s.state == slotBusy {
			s.state = slotReady
		}
		d.finish(ch, batch)
	case turnWedged:
		d.finish(ch, batch)
		d.processLost(ctx, s, p)
	case turnCrashed:
		for i := range batch {
			batch[i].Attempts++
		}
		if batch[0].Attempts >= breakerThreshold {
			delete(d.inFlight, ch)
			go func() {
				why := fmt.Errorf("the agent crashed %d times on this request (%v). Please re-send", batch[0].Attempts, p.err)
				d.postFailure(ctx, batch, failureText("the agent failed", why, p.stderr, d.env))
				d.send(failurePosted{ch, batch, true})
			}()
		} else {
			d.log.Warn("turn lost to a crash; retrying on a fresh process", "channel", ch, "attempt", batch[0].Attempts)
			delete(d.inFlight, ch)
			d.queue.Requeue(ch, batch)
			d.out.receipt(batch, kinds.ReceiptQueued, fmt.Sprintf("the agent crashed (%v); retrying on a fresh process", p.err), "")
		}
		d.processLost(ctx, s, p)
	}
	d.pump(ctx)
}

// processLost retires p from s and respawns through the breaker.
func (d *dispatcher) processLost(ctx context.Context, s *slot, p *agentProc) {
	if s.proc != p {
		return
	}
	s.proc = nil
	go p.kill()
	d.slotFailed(ctx, s)
}

// finish forgets an answered batch and moves the cursor.
func (d *dispatcher) finish(ch string, batch []Mention) {
	delete(d.inFlight, ch)
	d.queue.Done(ch, batch)
	floor := time.Now()
	if t, ok := d.queue.Oldest(); ok && t.Before(floor) {
		floor = t
	}
	for _, b := range d.inFlight {
		for _, m := range b {
			if m.ID != "" && m.At.Before(floor) {
				floor = m.At
			}
		}
	}
	d.state.MarkAnswered(batch, floor.Unix())
}

// stopProcesses stops every agent process once run has returned.
func (d *dispatcher) stopProcesses() {
	select {
	case <-d.closed:
	case <-time.After(5 * time.Second):
	}
	var wg sync.WaitGroup
	for _, s := range d.slots {
		if p := s.proc; p != nil {
			wg.Add(1)
			go func() { defer wg.Done(); p.stop() }()
		}
	}
	wg.Wait()
}
