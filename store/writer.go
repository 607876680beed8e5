package store

import (
	"context"
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

type op int

const (
	opSave op = iota
	opDelete
	opSweep
	opExec
	opIndex // an Exec of the store's own that writes only the search index
)

// write is one queued operation of the writer goroutine.
type write struct {
	op      op
	ev      *nostr.Event
	fn      func(WriteTx) error
	err     error
	derived []*nostr.Event
	seqs    []int64                     // sequence numbers of what it stored
	res     chan struct{}               // closed when done, for waiting callers
	cb      func([]*nostr.Event, error) // called when done, for async callers
}

func (w *write) finish() {
	if w.cb != nil {
		w.cb(w.derived, w.err)
		return
	}
	close(w.res)
}

func (c *Core) submit(ctx context.Context, w *write) error {
	w.res = make(chan struct{})
	if err := c.queue.Put(ctx, w); err != nil {
		return err
	}
	select {
	case <-w.res:
		return w.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Publish stores ev by its kind's storage class (regular, replaceable or
// addressable; NIP-09 deletions applied) and returns after commit, with any
// events the projector derived from it.
func (c *Core) Publish(ctx context.Context, ev *nostr.Event) ([]*nostr.Event, error) {
	w := &write{op: opSave, ev: ev}
	err := c.submit(ctx, w)
	return w.derived, err
}

// PublishAsync queues ev like Publish and returns at once; done is called from
// the writer goroutine after the commit (or the rejection), so it must not
// block. It blocks only while the write queue is full.
func (c *Core) PublishAsync(ctx context.Context, ev *nostr.Event, done func(derived []*nostr.Event, err error)) error {
	return c.queue.Put(ctx, &write{op: opSave, ev: ev, cb: done})
}

// SaveEvent satisfies eventstore.Store. Replaceable kinds are replaced.
func (c *Core) SaveEvent(ctx context.Context, ev *nostr.Event) error {
	_, err := c.Publish(ctx, ev)
	return err
}

// ReplaceEvent satisfies eventstore.Store; Publish already replaces by kind.
func (c *Core) ReplaceEvent(ctx context.Context, ev *nostr.Event) error {
	_, err := c.Publish(ctx, ev)
	return err
}

// DeleteEvent removes ev from the log, with no side effects.
func (c *Core) DeleteEvent(ctx context.Context, ev *nostr.Event) error {
	return c.submit(ctx, &write{op: opDelete, ev: ev})
}

// Exec runs fn inside the writer's next transaction, serialised with event
// writes (with every instance's, on a log several instances share).
func (c *Core) Exec(ctx context.Context, fn func(WriteTx) error) error {
	return c.submit(ctx, &write{op: opExec, fn: fn})
}

// execIndex is Exec for the search index's background build, which never
// changes the projector's tables.
func (c *Core) execIndex(ctx context.Context, fn func(WriteTx) error) error {
	return c.submit(ctx, &write{op: opIndex, fn: fn})
}

// SweepExpired deletes events whose NIP-40 expiration has passed. Queries
// already hide them; this reclaims the space. The store also runs it every
// Options.SweepEvery.
func (c *Core) SweepExpired(ctx context.Context) error {
	return c.submit(ctx, &write{op: opSweep})
}

// commit applies a batch in one transaction. Every step of a write decides
// before it changes anything (that is the contract for projectors too), so a
// refused event leaves nothing to undo and needs no savepoint. An unexpected
// SQL error rolls the batch back (PostgreSQL aborts the transaction on one)
// and replays it one write per transaction.
func (c *Core) commit(batch []*write) {
	defer func() {
		for _, w := range batch {
			w.finish()
		}
	}()
	if c.commitBatch(batch) {
		return
	}
	NotifyRolledBack(c.opts.Projector)
	for _, w := range batch {
		w.err, w.derived = nil, nil
		c.commitBatch([]*write{w})
	}
}

// commitBatch reports false when the batch must be retried write by write.
func (c *Core) commitBatch(batch []*write) bool {
	tx, err := c.db.Begin()
	if err != nil {
		for _, w := range batch {
			w.err = fmt.Errorf("error: could not start a transaction: %w", err)
		}
		return true
	}
	if c.deleted, err = c.prefetchDeleted(tx, batch); err != nil {
		tx.Rollback()
		for _, w := range batch {
			w.err = fmt.Errorf("error: checking for deletions: %w", err)
		}
		return true
	}
	defer func() { c.deleted, c.named = nil, nil }()
	c.texts = c.texts[:0]
	i := applyBatch(batch, func(w *write) error { return c.apply(tx, w) }, setErr, saves)
	if i < 0 {
		if err := c.flushTexts(tx); err != nil {
			i, batch[0].err = 0, err // the batch is tried again write by write
		}
	}
	if i >= 0 {
		w := batch[i]
		tx.Rollback()
		if len(batch) > 1 {
			return false
		}
		NotifyRolledBack(c.opts.Projector)
		w.err, w.derived = fmt.Errorf("error: %w", w.err), nil
		return true
	}
	var seqs []int64
	changed := false
	for _, w := range batch {
		if w.err == nil {
			seqs = append(seqs, w.seqs...)
			changed = changed || c.mayChangeState(w)
		}
	}
	start := time.Now()
	if err := tx.Commit(seqs, changed); err != nil {
		for _, w := range batch {
			w.err, w.derived = fmt.Errorf("error: commit failed: %w", err), nil
		}
		NotifyRolledBack(c.opts.Projector)
		return true
	}
	if c.opts.OnCommit != nil {
		c.opts.OnCommit(len(batch), time.Since(start))
	}
	var evs []*nostr.Event
	for _, w := range batch {
		if w.op == opSave && w.err == nil {
			evs = append(evs, w.ev)
		}
	}
	notifyCommitted(c.opts.Projector, evs)
	return true
}

// mayChangeState reports whether a write that succeeded may have changed
// the projector's tables: a save of a kind it writes for (Projector.Stateful),
// or any other operation but the search index's build.
func (c *Core) mayChangeState(w *write) bool {
	switch w.op {
	case opSave:
		return c.opts.Projector != nil && c.opts.Projector.Stateful(w.ev.Kind)
	case opIndex:
		return false
	}
	return true
}

func setErr(w *write, err error) { w.err = err }

// saves names the event a write stores, for applyBatch.
func saves(w *write) string {
	if w.op != opSave {
		return ""
	}
	return w.ev.ID
}
