package store

import (
	"errors"

	"github.com/nbd-wtf/go-nostr"
)

// applyBatch is the apply loop both logs' writers share. It runs apply on
// each write of batch in order and records the result with setErr. A write
// refused for want of an event queued later in the batch (Rejection.Needs)
// is tried again right after that event: a refusal has written nothing, so
// nothing needs undoing. It returns the index of the first write that failed
// outright (not a refusal), or -1. saves names the event a write stores
// ("" for other operations).
func applyBatch[W any](batch []W, apply func(W) error, setErr func(W, error), saves func(W) string) int {
	moves := 0
	for i := 0; i < len(batch); i++ {
		w := batch[i]
		err := apply(w)
		setErr(w, err)
		if err == nil {
			continue
		}
		if !IsRefusal(err) {
			return i
		}
		var r *Rejection
		if !errors.As(err, &r) || r.Needs == "" || moves >= len(batch)*len(batch) {
			continue
		}
		for j, later := range batch[i+1:] {
			if saves(later) == r.Needs {
				moves++
				copy(batch[i:], batch[i+1:i+2+j])
				batch[i+1+j] = w
				setErr(w, nil)
				i--
				break
			}
		}
	}
	return -1
}

// IsRefusal tells a decided refusal (nothing written) from a failure.
func IsRefusal(err error) bool {
	var r *Rejection
	return errors.As(err, &r) || errors.Is(err, ErrDuplicate)
}

// NotifyRolledBack tells the projector, if it caches, that writes it saw
// were undone, or that the tables moved under it (another instance wrote).
func NotifyRolledBack(p Projector) {
	if rb, ok := p.(interface{ RolledBack() }); ok {
		rb.RolledBack()
	}
}

// notifyCommitted tells the projector, if it wants to know, which events a
// commit stored, before any caller hears of them.
func notifyCommitted(p Projector, evs []*nostr.Event) {
	if cm, ok := p.(interface{ Committed([]*nostr.Event) }); ok {
		cm.Committed(evs)
	}
}
