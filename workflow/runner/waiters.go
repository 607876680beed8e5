package runner

import (
	"sync"

	"github.com/ainb/hive/kinds"
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
