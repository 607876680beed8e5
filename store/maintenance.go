package store

import (
	"sync"
	"time"
)

// Maintenance is a store's background loop (the expiry sweep, SQLite's WAL
// checkpoints): it runs a job at a fixed interval until stopped. The store
// that starts it stops it in Close, so whoever opens a store never runs its
// upkeep.
type Maintenance struct {
	once sync.Once
	quit chan struct{}
	done chan struct{}
	wake chan struct{}
}

// StartMaintenance runs job every interval; a negative interval never runs it.
func StartMaintenance(every time.Duration, job func()) *Maintenance {
	m := &Maintenance{quit: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{}, 1)}
	go func() {
		defer close(m.done)
		if every < 0 {
			<-m.quit
			return
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-m.quit:
				return
			case <-t.C:
				job()
			case <-m.wake:
				job()
			}
		}
	}()
	return m
}

// Wake runs the job now (after a running one) without waiting for it.
func (m *Maintenance) Wake() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Stop ends the loop and waits for a running job; calling it again is a no-op.
func (m *Maintenance) Stop() {
	if m == nil {
		return
	}
	m.once.Do(func() { close(m.quit) })
	<-m.done
}
