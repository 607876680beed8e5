package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

type op int

const (
	opSave op = iota
	opDelete
	opSweep
	opExec
)

type write struct {
	op      op
	ev      *nostr.Event
	fn      func(store.WriteTx) error
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

func (s *Store) submit(ctx context.Context, w *write) error {
	w.res = make(chan struct{})
	if err := s.queue.Put(ctx, w); err != nil {
		return err
	}
	select {
	case <-w.res:
		return w.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Publish stores ev by its kind's storage class and returns after commit,
// with any events the projector derived from it.
func (s *Store) Publish(ctx context.Context, ev *nostr.Event) ([]*nostr.Event, error) {
	w := &write{op: opSave, ev: ev}
	err := s.submit(ctx, w)
	return w.derived, err
}

// PublishAsync queues ev like Publish and returns at once; done is called from
// the writer goroutine after the commit (or the rejection), so it must not
// block. It blocks only while the write queue is full.
func (s *Store) PublishAsync(ctx context.Context, ev *nostr.Event, done func(derived []*nostr.Event, err error)) error {
	return s.queue.Put(ctx, &write{op: opSave, ev: ev, cb: done})
}

// SaveEvent satisfies eventstore.Store. Replaceable kinds are replaced.
func (s *Store) SaveEvent(ctx context.Context, ev *nostr.Event) error {
	_, err := s.Publish(ctx, ev)
	return err
}

// ReplaceEvent satisfies eventstore.Store; Publish already replaces by kind.
func (s *Store) ReplaceEvent(ctx context.Context, ev *nostr.Event) error {
	_, err := s.Publish(ctx, ev)
	return err
}

// DeleteEvent removes ev from the log, with no side effects.
func (s *Store) DeleteEvent(ctx context.Context, ev *nostr.Event) error {
	return s.submit(ctx, &write{op: opDelete, ev: ev})
}

// Exec runs fn inside the writer's next transaction, serialised with event
// writes (of every instance: it holds the write lock).
func (s *Store) Exec(ctx context.Context, fn func(store.WriteTx) error) error {
	return s.submit(ctx, &write{op: opExec, fn: fn})
}

// commit applies a batch in one transaction. Every step of a write decides
// before it changes anything (the contract for projectors too), so a refused
// event leaves nothing to undo. An unexpected SQL error aborts a PostgreSQL
// transaction, so the batch is rolled back and replayed one write per
// transaction.
func (s *Store) commit(batch []*write) {
	defer func() {
		for _, w := range batch {
			w.finish()
		}
	}()
	if s.commitBatch(batch) {
		return
	}
	s.rolledBack()
	for _, w := range batch {
		w.err, w.derived = nil, nil
		s.commitBatch([]*write{w})
	}
}

// rolledBack tells the projector, if it caches, that writes it saw were undone.
func (s *Store) rolledBack() {
	if rb, ok := s.opts.Projector.(interface{ RolledBack() }); ok {
		rb.RolledBack()
	}
}

// commitBatch reports false when the batch must be retried write by write.
func (s *Store) commitBatch(batch []*write) bool {
	sqlTx, err := s.begin()
	if err != nil {
		for _, w := range batch {
			w.err = fmt.Errorf("error: could not start a transaction: %w", err)
		}
		return true
	}
	tx := &Tx{tx: sqlTx}
	var seqs []int64
	if i := store.ApplyBatch(batch, func(w *write) error { return s.apply(tx, w) }, setErr, saves); i >= 0 {
		w := batch[i]
		sqlTx.Rollback()
		if len(batch) > 1 {
			return false
		}
		s.rolledBack()
		w.err, w.derived = fmt.Errorf("error: %w", w.err), nil
		return true
	}
	for _, w := range batch {
		if w.err == nil {
			seqs = append(seqs, w.seqs...)
		}
	}
	if len(seqs) > 0 {
		// The sequence numbers are marked as this process's before any
		// follower can see them; the notification goes out with the commit.
		s.own.add(seqs)
		_, err = sqlTx.Exec(`SELECT pg_notify($1, $2)`, Channel, strconv.FormatInt(slices.Max(seqs), 10))
	}
	if err == nil {
		err = sqlTx.Commit()
	} else {
		sqlTx.Rollback()
	}
	if err != nil {
		s.own.drop(seqs)
		for _, w := range batch {
			w.err, w.derived = fmt.Errorf("error: commit failed: %w", err), nil
		}
		s.rolledBack()
		return true
	}
	if len(seqs) > 0 {
		s.lastSeq = max(s.lastSeq, slices.Max(seqs))
	}
	s.committed(batch)
	return true
}

// begin starts a write transaction holding the cluster-wide write lock. If
// another instance committed since this writer last held it, the projector
// drops what it cached: the tables moved under it.
func (s *Store) begin() (*sql.Tx, error) {
	sqlTx, err := s.w.Begin()
	if err != nil {
		return nil, err
	}
	var top int64
	if _, err = sqlTx.Exec(`SELECT pg_advisory_xact_lock($1)`, writeLock); err == nil {
		err = sqlTx.QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&top)
	}
	if err != nil {
		sqlTx.Rollback()
		return nil, err
	}
	if top != s.lastSeq {
		s.lastSeq = top
		s.rolledBack()
	}
	return sqlTx, nil
}

// committed tells the projector which events a commit stored.
func (s *Store) committed(batch []*write) {
	var evs []*nostr.Event
	for _, w := range batch {
		if w.op == opSave && w.err == nil {
			evs = append(evs, w.ev)
		}
	}
	store.NotifyCommitted(s.opts.Projector, evs)
}

func setErr(w *write, err error) { w.err = err }

// saves names the event a write stores, for store.ApplyBatch.
func saves(w *write) string {
	if w.op != opSave {
		return ""
	}
	return w.ev.ID
}
