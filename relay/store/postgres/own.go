package postgres

import "sync"

// ownSeqs are the sequence numbers this process committed (or is about to),
// so a follower can tell its own events, already delivered locally, from
// another instance's.
type ownSeqs struct {
	mu        sync.Mutex
	m         map[int64]bool
	followers int // nothing is recorded while nobody follows
}

func (o *ownSeqs) follow(delta int) {
	o.mu.Lock()
	o.followers += delta
	if o.followers == 0 {
		clear(o.m)
	}
	o.mu.Unlock()
}

func (o *ownSeqs) add(seqs []int64) {
	o.mu.Lock()
	if o.followers == 0 {
		o.mu.Unlock()
		return
	}
	for _, s := range seqs {
		o.m[s] = true
	}
	o.mu.Unlock()
}

func (o *ownSeqs) drop(seqs []int64) {
	o.mu.Lock()
	for _, s := range seqs {
		delete(o.m, s)
	}
	o.mu.Unlock()
}

// take reports whether seq is this process's, forgetting it and anything
// older than done (events replaced or deleted before a follower read them).
func (o *ownSeqs) take(seq, done int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	mine := o.m[seq]
	delete(o.m, seq)
	if len(o.m) > 1024 {
		for s := range o.m {
			if s <= done {
				delete(o.m, s)
			}
		}
	}
	return mine
}
