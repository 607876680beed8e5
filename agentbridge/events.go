package agentbridge

import "context"

// event is something the dispatcher goroutine acts on. The dispatcher
// owns the queue and the slots (dispatcher); everything else that changes
// them sends one of these typed events, handled one at a time in order.
type event interface{ dispatcherEvent() }

type (
	// mentionIn is a mention (or an owner's queued steer) to queue.
	mentionIn struct{ m Mention }
	// processUp is the end of a spawn: the process ready, or why not.
	processUp struct {
		s   *slot
		p   *agentProc
		err error
	}
	// processExit says a slot's process exited.
	processExit struct {
		s *slot
		p *agentProc
	}
	// turnEnded is a turn's end and how it went.
	turnEnded struct {
		s     *slot
		p     *agentProc
		ch    string
		batch []Mention
		out   turnOutcome
	}
	// failurePosted says a batch that waited got its failure reply outside
	// a turn (every breaker open, or lost to crashes); pump asks for the
	// next turns.
	failurePosted struct {
		ch    string
		batch []Mention
		pump  bool
	}
)

func (mentionIn) dispatcherEvent()     {}
func (processUp) dispatcherEvent()     {}
func (processExit) dispatcherEvent()   {}
func (turnEnded) dispatcherEvent()     {}
func (failurePosted) dispatcherEvent() {}

// send hands ev to the dispatcher (dropped once it has stopped). Any
// goroutine may call it.
func (d *dispatcher) send(ev event) {
	select {
	case d.events <- ev:
	case <-d.closed:
	}
}

// enqueue hands a mention to the dispatcher, which queues it unless a queue
// limit refuses it (see overflow). Any goroutine may call it.
func (d *dispatcher) enqueue(m Mention) { d.send(mentionIn{m}) }

// handle acts on one event, on the dispatcher goroutine.
func (d *dispatcher) handle(ctx context.Context, ev event) {
	switch e := ev.(type) {
	case mentionIn:
		d.queueMention(ctx, e.m)
	case processUp:
		d.processStarted(ctx, e)
	case processExit:
		d.processExited(ctx, e)
	case turnEnded:
		d.turnDone(ctx, e.s, e.p, e.ch, e.batch, e.out)
	case failurePosted:
		d.finish(e.ch, e.batch)
		if e.pump {
			d.pump(ctx)
		}
	}
}
