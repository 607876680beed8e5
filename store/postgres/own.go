package postgres

import "sync"

// keepOwn bounds how many of its own sequence numbers a store remembers for
// a follower that has not read them yet (none reads them if nobody follows).
const keepOwn = 100_000

// ownSeqs are the sequence numbers this process committed (or is about to),
// so a follower can tell its own events, already delivered locally, from
// another instance's. They are recorded from the start, whether or not a
// follower runs yet, so no commit slips between a follower's starting point
// and its first read.
type ownSeqs struct {
	mu  sync.Mutex
	m   map[int64]bool
	top int64
}

func (o *ownSeqs) add(seqs []int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range seqs {
		o.m[s] = true
		o.top = max(o.top, s)
	}
	if len(o.m) > keepOwn {
		o.forget(o.top - keepOwn/2)
	}
}

func (o *ownSeqs) drop(seqs []int64) {
	o.mu.Lock()
	for _, s := range seqs {
		delete(o.m, s)
	}
	o.mu.Unlock()
}

// take reports whether seq is this process's, forgetting it and anything
// older (events replaced or deleted before a follower read them).
func (o *ownSeqs) take(seq int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	mine := o.m[seq]
	delete(o.m, seq)
	if len(o.m) > 1024 {
		o.forget(seq)
	}
	return mine
}

// forget drops every sequence number up to and including upTo.
func (o *ownSeqs) forget(upTo int64) {
	for s := range o.m {
		if s <= upTo {
			delete(o.m, s)
		}
	}
}
