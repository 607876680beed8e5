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

// do runs fn on the dispatcher goroutine (dropped once it has stopped).
func (r *runner) do(fn func(ctx context.Context)) {
	select {
	case r.work <- fn:
	case <-r.closed:
	}
}

// dispatchLoop owns the queue and the slots.
func (r *runner) dispatchLoop(ctx context.Context) {
	defer close(r.closed)
	for i := range r.d.slots {
		r.spawnSlot(ctx, r.d.slots[i], 0)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case fn := <-r.work:
			fn(ctx)
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
		r.do(func(ctx context.Context) {
			if err != nil {
				r.log.Error("agent process failed to start", "slot", s.idx, "err", err)
				r.slotFailed(ctx, s)
				return
			}
			s.p, s.state = p, slotReady
			r.log.Info("agent process ready", "slot", s.idx, "pid", p.Pid(), "agent", p.info.Name, "version", p.info.Version,
				"loadSession", p.info.LoadSession, "steering", p.info.Steering)
			go r.watchExit(s, p)
			r.pump(ctx)
		})
	}()
}

// watchExit notices a process that dies while idle.
func (r *runner) watchExit(s *slot, p *agentProc) {
	<-p.exited
	r.do(func(ctx context.Context) {
		if s.p == p && s.state == slotReady {
			r.log.Warn("agent process exited while idle", "slot", s.idx, "err", p.err)
			s.p = nil
			r.slotFailed(ctx, s)
		}
	})
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
func (r *runner) slotFor(channel string) *slot {
	if i, ok := r.d.affinity[channel]; ok {
		switch s := r.d.slots[i]; s.state {
		case slotReady:
			return s
		case slotBusy:
			return nil
		}
	}
	var best *slot
	for _, s := range r.d.slots {
		if s.state == slotReady && (best == nil || s.pinned < best.pinned) {
			best = s
		}
	}
	return best
}

// pump starts turns while a channel has work and a process is free. With
// every slot's breaker open, waiting batches get a failure reply.
func (r *runner) pump(ctx context.Context) {
	for {
		ch, batch := r.d.q.Next(func(ch string) bool { return r.slotFor(ch) != nil })
		if ch == "" {
			break
		}
		s := r.slotFor(ch)
		if i, ok := r.d.affinity[ch]; !ok || i != s.idx {
			if ok {
				r.d.slots[i].pinned--
			}
			r.d.affinity[ch] = s.idx
			s.pinned++
		}
		s.state = slotBusy
		r.d.inFlight[ch] = batch
		p := s.p
		go func() {
			out := r.runTurn(ctx, s, p, ch, batch)
			r.do(func(ctx context.Context) { r.turnDone(ctx, s, p, ch, batch, out) })
		}()
	}
	defer r.noteDispatch()
	if r.d.q.Len() > 0 && r.allOpen() {
		for {
			ch, batch := r.d.q.Next(func(string) bool { return true })
			if ch == "" {
				break
			}
			r.d.inFlight[ch] = batch
			go func() {
				r.postFailure(ctx, batch, "the agent keeps crashing; its circuit breaker is open. Please re-send later.")
				r.do(func(ctx context.Context) { r.finish(ch, batch) })
			}()
		}
	}
}

func (r *runner) allOpen() bool {
	for _, s := range r.d.slots {
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
				r.do(func(ctx context.Context) { r.finish(ch, batch); r.pump(ctx) })
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
