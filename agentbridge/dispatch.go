package agentbridge

import (
	"context"
	"fmt"
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
	p       *agentProc
	breaker Breaker
	loaded  map[string]string // channel -> session loaded in this process
	pinned  int               // channels with affinity to this slot
}

// dispatch is the dispatcher goroutine's state.
type dispatch struct {
	q        *Queue
	slots    []*slot
	affinity map[string]int       // channel -> slot
	inFlight map[string][]Mention // channel -> batch being answered
	overflow map[string]bool      // channel+author told that the queue is full
	// start runs a batch's turn on slot s (its process p) away from the
	// dispatcher, which hears of its end as a turnEnded event.
	start func(ctx context.Context, s *slot, p *agentProc, ch string, batch []Mention)
}

func newDispatch(n int) dispatch {
	d := dispatch{q: NewQueue(), affinity: map[string]int{}, inFlight: map[string][]Mention{}, overflow: map[string]bool{}}
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

// dispatchLoop owns the queue and the slots: it handles the dispatcher's
// events (events.go) one at a time until ctx ends.
func (r *runner) dispatchLoop(ctx context.Context) {
	defer close(r.closed)
	for i := range r.d.slots {
		r.spawnSlot(ctx, r.d.slots[i], 0)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-r.events:
			r.handleEvent(ctx, ev)
		}
	}
}

// spawnSlot starts a process for s after delay, reporting back to the
// dispatcher.
func (r *runner) spawnSlot(ctx context.Context, s *slot, delay time.Duration) {
	s.state = slotStarting
	s.loaded = map[string]string{}
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		p, err := startAgent(ctx, append(append([]string(nil), r.opt.Guard...), r.cfg.Command...), r.cfg.Cwd, r.cfg.Env, r.cfg.AuthMethod, r.opt.Stderr, r)
		r.send(processUp{s, p, err})
	}()
}

// processStarted puts a started process in its slot, or counts a failed
// start against the slot's breaker.
func (r *runner) processStarted(ctx context.Context, e processUp) {
	s, p := e.s, e.p
	if e.err != nil {
		r.log.Error("agent process failed to start", "slot", s.idx, "err", e.err)
		r.slotFailed(ctx, s)
		return
	}
	s.p, s.state = p, slotReady
	r.log.Info("agent process ready", "slot", s.idx, "pid", p.Pid(), "agent", p.info.Name, "version", p.info.Version,
		"loadSession", p.info.LoadSession, "steering", p.info.Steering)
	go func() { <-p.exited; r.send(processExit{s, p}) }()
	r.pump(ctx)
}

// processExited retires a process that died while idle (one that died in
// a turn is the turn's to report).
func (r *runner) processExited(ctx context.Context, e processExit) {
	if s := e.s; s.p == e.p && s.state == slotReady {
		r.log.Warn("agent process exited while idle", "slot", s.idx, "err", e.p.err)
		s.p = nil
		r.slotFailed(ctx, s)
	}
}

// slotFailed records a crash in the slot's breaker and schedules a respawn.
func (r *runner) slotFailed(ctx context.Context, s *slot) {
	wait, open := s.breaker.Crash(time.Now())
	if open {
		s.state = slotOpen
		r.log.Error("circuit breaker open: too many crashes", "slot", s.idx, "cooldown", wait)
	}
	r.spawnSlot(ctx, s, wait)
	if open {
		s.state = slotOpen // still respawned after the cooldown (half-open)
	}
	r.pump(ctx)
}

// slotFor picks the process for a channel: its affinity slot if idle (wait
// while it is busy), else the idle slot with the fewest channels.
func (d *dispatch) slotFor(channel string) *slot {
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
func (r *runner) pump(ctx context.Context) {
	d := &r.d
	for {
		ch, batch := d.q.Next(func(ch string) bool { return d.slotFor(ch) != nil })
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
		d.start(ctx, s, s.p, ch, batch)
	}
	defer r.noteDispatch()
	if d.q.Len() > 0 && d.allOpen() {
		for {
			ch, batch := d.q.Next(func(string) bool { return true })
			if ch == "" {
				break
			}
			d.inFlight[ch] = batch
			go func() {
				r.postFailure(ctx, batch, "the agent keeps crashing; its circuit breaker is open. Please re-send later.")
				r.send(failurePosted{ch, batch, false})
			}()
		}
	}
}

// startTurn is dispatch.start: the turn runs on its own goroutine.
func (r *runner) startTurn(ctx context.Context, s *slot, p *agentProc, ch string, batch []Mention) {
	go func() {
		out := r.runTurn(ctx, s, p, ch, batch)
		r.send(turnEnded{s, p, ch, batch, out})
	}()
}

func (d *dispatch) allOpen() bool {
	for _, s := range d.slots {
		if s.state != slotOpen {
			return false
		}
	}
	return true
}

// turnDone updates the slot and the queue after a turn.
func (r *runner) turnDone(ctx context.Context, s *slot, p *agentProc, ch string, batch []Mention, out turnOutcome) {
	switch out {
	case turnAnswered:
		if s.p == p && s.state == slotBusy {
			s.state = slotReady
		}
		r.finish(ch, batch)
	case turnWedged:
		r.finish(ch, batch)
		r.processLost(ctx, s, p)
	case turnCrashed:
		for i := range batch {
			batch[i].Attempts++
		}
		if batch[0].Attempts >= breakerThreshold {
			delete(r.d.inFlight, ch)
			go func() {
				why := fmt.Errorf("the agent crashed %d times on this request (%v). Please re-send", batch[0].Attempts, p.err)
				r.postFailure(ctx, batch, failureText("the agent failed", why, p.stderr, r.cfg.Env))
				r.send(failurePosted{ch, batch, true})
			}()
		} else {
			r.log.Warn("turn lost to a crash; retrying on a fresh process", "channel", ch, "attempt", batch[0].Attempts)
			delete(r.d.inFlight, ch)
			r.d.q.Requeue(ch, batch)
			r.receipt(batch, kinds.ReceiptQueued, fmt.Sprintf("the agent crashed (%v); retrying on a fresh process", p.err), "")
		}
		r.processLost(ctx, s, p)
	}
	r.pump(ctx)
}

// processLost retires p from s and respawns through the breaker.
func (r *runner) processLost(ctx context.Context, s *slot, p *agentProc) {
	if s.p != p {
		return
	}
	s.p = nil
	go p.kill()
	r.slotFailed(ctx, s)
}

// finish forgets an answered batch and moves the cursor.
func (r *runner) finish(ch string, batch []Mention) {
	delete(r.d.inFlight, ch)
	r.d.q.Done(ch, batch)
	floor := time.Now()
	if t, ok := r.d.q.Oldest(); ok && t.Before(floor) {
		floor = t
	}
	for _, b := range r.d.inFlight {
		for _, m := range b {
			if m.ID != "" && m.At.Before(floor) {
				floor = m.At
			}
		}
	}
	r.state.MarkAnswered(batch, floor.Unix())
}

// shutdown stops every agent process.
func (r *runner) shutdown() {
	select {
	case <-r.closed:
	case <-time.After(5 * time.Second):
	}
	var wg sync.WaitGroup
	for _, s := range r.d.slots {
		if p := s.p; p != nil {
			wg.Add(1)
			go func() { defer wg.Done(); p.stop() }()
		}
	}
	wg.Wait()
	r.state.Flush()
}
