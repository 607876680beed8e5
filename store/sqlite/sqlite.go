// Package sqlite is hive's SQLite event log. It implements eventstore.Store and
// eventstore.Counter with exact tag matching through an indexed tag table, and a
// single writer goroutine that commits queued events in batches: a write call
// returns only after the transaction holding its event has committed.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/groupcommit"
	"github.com/fiatjaf/eventstore"
	"github.com/mattn/go-sqlite3"
	"github.com/nbd-wtf/go-nostr"
)

func defaults(o *store.Options) {
	if o.MaxBatch <= 0 {
		o.MaxBatch = 1000
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 4096
	}
	if o.CommitWindow == 0 {
		o.CommitWindow = time.Millisecond
	}
	if o.WindowBatch <= 0 {
		o.WindowBatch = 8
	}
	if o.MmapBytes <= 0 {
		o.MmapBytes = 4 << 30
	}
	if o.PageSize <= 0 {
		o.PageSize = 2048
	}
	if o.Readers <= 0 {
		o.Readers = 4
	}
	if o.DefaultLimit <= 0 {
		o.DefaultLimit = 500
	}
	if o.MaxLimit <= 0 {
		o.MaxLimit = 5000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = func(string, error) {}
	}
	if o.SweepEvery == 0 {
		o.SweepEvery = time.Minute
	}
}

// Store is the event log. Create it with Open.
type Store struct {
	opts store.Options
	w    *sql.DB // exactly one connection, used only by the writer goroutine
	r    *sql.DB // read-only pool
	ck   *sql.DB // one connection that checkpoints the WAL, off the write path

	// Statements prepared on the writer's connection, keyed by SQL. Only the
	// writer goroutine touches them; a statement first seen inside a
	// transaction runs unprepared and is prepared after that batch commits.
	wstmts map[string]*sql.Stmt
	wanted map[string]bool

	rmu    sync.Mutex // guards rstmts
	rstmts map[string]*sql.Stmt

	stopCk chan struct{}
	ckDone chan struct{}
	upkeep *store.Maintenance

	queue     *groupcommit.Queue[*write] // the writer goroutine's input
	closeOnce sync.Once
}

var (
	_ eventstore.Store   = (*Store)(nil)
	_ eventstore.Counter = (*Store)(nil)
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

// Open opens (creating if needed) the event log at path and starts its writer.
func Open(path string, opts store.Options) (*Store, error) {
	defaults(&opts)
	base := "file:" + (&url.URL{Path: path}).EscapedPath()
	w, err := sql.Open("sqlite3", base+"?_synchronous=FULL&_busy_timeout=10000&_txlock=immediate&_foreign_keys=0&_cache_size=-32000")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	// A new log gets small pages: a commit writes each page it touched to the
	// WAL, and most events touch a few index pages at random, so smaller pages
	// mean fewer bytes per commit. (No effect on an existing file.)
	if _, err := w.Exec(fmt.Sprintf(`PRAGMA page_size = %d`, opts.PageSize)); err != nil {
		w.Close()
		return nil, err
	}
	if _, err := w.Exec(`PRAGMA journal_mode = WAL`); err != nil {
		w.Close()
		return nil, err
	}
	all := append([]string{}, schema...)
	if opts.Projector != nil {
		all = append(all, opts.Projector.Schema()...)
	}
	for _, stmt := range all {
		if _, err := w.Exec(stmt); err != nil {
			w.Close()
			return nil, fmt.Errorf("store schema: %w", err)
		}
	}
	if err := migrateChannel(w); err != nil {
		w.Close()
		return nil, fmt.Errorf("store schema: recording each event's channel: %w", err)
	}
	// Readers map the file (no read syscall per page) and keep a private cache.
	r := sql.OpenDB(&connector{
		dsn: base + "?mode=ro&_journal_mode=WAL&_busy_timeout=10000&_query_only=1&_cache_size=-16000",
		drv: &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d", opts.MmapBytes), nil)
			return err
		}},
	})
	r.SetMaxOpenConns(opts.Readers)
	r.SetMaxIdleConns(opts.Readers)
	// Commits must not stop to copy the WAL into the database: the writer never
	// checkpoints, a goroutine of its own does (PASSIVE: it never blocks writes).
	if _, err := w.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	ck, err := sql.Open("sqlite3", base+"?_journal_mode=WAL&_synchronous=FULL&_busy_timeout=10000")
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	ck.SetMaxOpenConns(1)
	s := &Store{opts: opts, w: w, r: r, ck: ck, stopCk: make(chan struct{}), ckDone: make(chan struct{}),
		wstmts: map[string]*sql.Stmt{}, wanted: map[string]bool{}, rstmts: map[string]*sql.Stmt{}}
	// The writer: group commit, one fsync per batch.
	s.queue = groupcommit.New(groupcommit.Options{MaxBatch: opts.MaxBatch, QueueSize: opts.QueueSize, Window: opts.CommitWindow, WindowBatch: opts.WindowBatch},
		func(batch []*write) {
			s.commit(batch)
			s.prepareWanted()
		})
	go s.checkpointer()
	s.upkeep = store.StartMaintenance(opts.SweepEvery, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.SweepExpired(ctx); err != nil {
			opts.Log("sweeping expired events failed", err)
		}
	})
	return s, nil
}

// Init satisfies eventstore.Store; Open already did the work.
func (s *Store) Init() error { return nil }

// Close stops accepting writes, commits everything already queued, and closes.
func (s *Store) Close() { s.closeOnce.Do(s.close) }

func (s *Store) close() {
	s.upkeep.Stop()
	s.queue.Close()
	close(s.stopCk)
	<-s.ckDone
	s.ck.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	s.ck.Close()
	for _, st := range s.wstmts {
		st.Close()
	}
	s.rmu.Lock()
	for _, st := range s.rstmts {
		st.Close()
	}
	s.rmu.Unlock()
	s.r.Close()
	s.w.Close()
}

// Limits reports the default and maximum limit the store applies to a filter.
func (s *Store) Limits() (def, max int) { return s.opts.DefaultLimit, s.opts.MaxLimit }

// ReadDB exposes the read-only pool for projections that want to answer queries.
func (s *Store) ReadDB() *sql.DB { return s.r }

// Reader is the read-only pool; SQLite takes ? placeholders as they are.
func (s *Store) Reader() store.Reader { return s.r }

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

// Publish stores ev by its kind's storage class (regular, replaceable or
// addressable; NIP-09 deletions applied) and returns after commit, with any
// events the projector derived from it.
func (s *Store) Publish(ctx context.Context, ev *nostr.Event) ([]*nostr.Event, error) {
	w := &write{op: opSave, ev: ev}
	err := s.submit(ctx, w)
	return w.derived, err
}

// PublishAsync queues ev like Publish and returns at once; done is called from
// the writer goroutine after the commit (or the rejection), so it must not block.
// It blocks only while the write queue is full.
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

// Exec runs fn inside the writer's next transaction, serialised with event writes.
func (s *Store) Exec(ctx context.Context, fn func(store.WriteTx) error) error {
	return s.submit(ctx, &write{op: opExec, fn: fn})
}

// SweepExpired deletes events whose NIP-40 expiration has passed.
func (s *Store) SweepExpired(ctx context.Context) error {
	return s.submit(ctx, &write{op: opSweep})
}

// checkpointer copies committed WAL frames into the database file in the
// background, so the WAL stays small without commits paying for it.
func (s *Store) checkpointer() {
	defer close(s.ckDone)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.stopCk:
			return
		case <-t.C:
			var busy, logFrames, done int
			if err := s.ck.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &done); err != nil {
				s.opts.Log("WAL checkpoint failed", err)
			}
		}
	}
}

// connector opens connections with a per-connection setup hook, without
// registering a driver globally.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c *connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c *connector) Driver() driver.Driver                        { return c.drv }

// Tx is the write transaction handed to projectors and Exec callbacks. Its
// Exec, Query and QueryRow reuse statements prepared on the writer's connection.
type Tx struct {
	*sql.Tx
	s *Store
}

func (t *Tx) stmt(q string) *sql.Stmt {
	if st := t.s.wstmts[q]; st != nil {
		return t.Tx.Stmt(st)
	}
	t.s.wanted[q] = true
	return nil
}

// Exec is sql.Tx.Exec through the statement cache.
func (t *Tx) Exec(q string, args ...any) (sql.Result, error) {
	if st := t.stmt(q); st != nil {
		return st.Exec(args...)
	}
	return t.Tx.Exec(q, args...)
}

// Query is sql.Tx.Query through the statement cache.
func (t *Tx) Query(q string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(q); st != nil {
		return st.Query(args...)
	}
	return t.Tx.Query(q, args...)
}

// QueryRow is sql.Tx.QueryRow through the statement cache.
func (t *Tx) QueryRow(q string, args ...any) *sql.Row {
	if st := t.stmt(q); st != nil {
		return st.QueryRow(args...)
	}
	return t.Tx.QueryRow(q, args...)
}

func (s *Store) prepareWanted() {
	for q := range s.wanted {
		delete(s.wanted, q)
		if len(s.wstmts) >= 512 {
			continue // dynamic SQL; do not let the cache grow without bound
		}
		if st, err := s.w.Prepare(q); err == nil {
			s.wstmts[q] = st
		}
	}
}

// commit applies a batch in one transaction. Every step of a write decides
// before it changes anything (that is the contract for projectors too), so a
// refused event leaves nothing to undo and needs no savepoint. An unexpected
// SQL error rolls the batch back and replays it one write per transaction.
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

// isDeleted reports whether a stored NIP-09 deletion by ev's author names ev
// in an e tag. Deletions are events like any other, their e tags in the tag
// index, so this is one indexed lookup and nothing is kept in memory.
func isDeleted(tx *Tx, ev *nostr.Event) (bool, error) {
	var gone bool
	err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM tags t CROSS JOIN events e ON e.seq = t.seq
		WHERE t.name = 'e' AND t.value = ? AND e.kind = ? AND e.pubkey = ?)`,
		ev.ID, kinds.Deletion, ev.PubKey).Scan(&gone)
	return gone, err
}

// rolledBack tells the projector, if it caches, that writes it saw were undone.
func (s *Store) rolledBack() {
	if rb, ok := s.opts.Projector.(interface{ RolledBack() }); ok {
		rb.RolledBack()
	}
}

// commitBatch reports false when the batch must be retried write by write.
func (s *Store) commitBatch(batch []*write) bool {
	sqlTx, err := s.w.Begin()
	if err != nil {
		for _, w := range batch {
			w.err = fmt.Errorf("error: could not start a transaction: %w", err)
		}
		return true
	}
	tx := &Tx{sqlTx, s}
	if i := store.ApplyBatch(batch, func(w *write) error { return s.apply(tx, w) }, setErr, saves); i >= 0 {
		w := batch[i]
		tx.Rollback()
		if len(batch) > 1 {
			return false
		}
		s.rolledBack()
		w.err, w.derived = fmt.Errorf("error: %w", w.err), nil
		return true
	}
	start := time.Now()
	if err := tx.Commit(); err != nil {
		for _, w := range batch {
			w.err, w.derived = fmt.Errorf("error: commit failed: %w", err), nil
		}
		s.rolledBack()
		return true
	}
	if s.opts.OnCommit != nil {
		s.opts.OnCommit(len(batch), time.Since(start))
	}
	s.committed(batch)
	return true
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

func (s *Store) apply(tx *Tx, w *write) error {
	switch w.op {
	case opDelete:
		return deleteByID(tx, w.ev.ID)
	case opSweep:
		return s.sweep(tx)
	case opExec:
		return w.fn(tx)
	}
	stateful := s.opts.Projector != nil && s.opts.Projector.Stateful(w.ev.Kind)
	p, err := s.check(tx, w.ev, stateful)
	if err != nil {
		return err
	}
	var derived []*nostr.Event
	if s.opts.Projector != nil {
		// Before the event's own deletions apply, so the projector sees their targets.
		if derived, err = s.opts.Projector.Apply(tx, w.ev); err != nil {
			return err
		}
	}
	if err := s.write(tx, w.ev, p); err != nil {
		return err
	}
	if w.ev.Kind == kinds.Deletion {
		if err := applyDeletion(tx, w.ev); err != nil {
			return err
		}
	}
	for _, d := range derived {
		dp, err := s.check(tx, d, true)
		if err == nil {
			err = s.write(tx, d, dp)
		}
		if err != nil && !store.IsRefusal(err) {
			return fmt.Errorf("storing derived kind %d: %w", d.Kind, err)
		}
	}
	w.derived = derived
	return nil
}

// plan is what check decided about an event, for write to carry out.
type plan struct {
	d          *string // NULL for regular events
	expiration *int64
	older      []int64 // superseded versions of a replaceable event
}

// check decides whether ev may be stored, without writing anything. A
// duplicate regular event is caught by write's insert instead, unless lookup
// asks for it now.
func (s *Store) check(tx *Tx, ev *nostr.Event, lookup bool) (plan, error) {
	var p plan
	if tag := ev.Tags.Find("expiration"); tag != nil {
		exp, err := strconv.ParseInt(tag[1], 10, 64)
		if err != nil {
			return p, reject("invalid: expiration tag is not a unix timestamp")
		}
		if exp <= s.opts.Now().Unix() {
			return p, reject("invalid: event has already expired")
		}
		p.expiration = &exp
	}
	storage := kinds.Classify(ev.Kind).Storage
	switch storage {
	case kinds.Ephemeral, kinds.NeverStored:
		return p, reject(fmt.Sprintf("invalid: kind %d is %s and is never stored", ev.Kind, storage))
	}
	if gone, err := isDeleted(tx, ev); err != nil {
		return p, fmt.Errorf("checking for a deletion: %w", err)
	} else if gone {
		return p, reject("blocked: this event was deleted by its author")
	}
	if lookup || storage == kinds.Replaceable || storage == kinds.Addressable {
		var exists bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM events WHERE id = ?)`, ev.ID).Scan(&exists); err != nil {
			return p, fmt.Errorf("checking for duplicates: %w", err)
		}
		if exists {
			return p, store.ErrDuplicate
		}
	}
	switch storage {
	case kinds.Replaceable:
		empty := ""
		p.d = &empty
	case kinds.Addressable:
		v := ev.Tags.GetD()
		p.d = &v
		gone, err := addrDeleted(tx, ev)
		if err != nil {
			return p, err
		}
		if gone {
			return p, reject("blocked: this address was deleted by its author")
		}
	}
	if p.d != nil {
		older, err := replaceable(tx, ev, *p.d)
		if err != nil {
			return p, err
		}
		p.older = older
	}
	return p, nil
}

// write stores ev as check planned it.
func (s *Store) write(tx *Tx, ev *nostr.Event, p plan) error {
	raw, err := ev.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encoding event: %w", err)
	}
	var channel *string
	if ch := store.ChannelOf(ev, func(id string) (string, bool) { return store.StoredChannel(tx, id) }); ch != "" {
		channel = &ch
	}
	res, err := tx.Exec(`INSERT INTO events (id, pubkey, created_at, kind, d, expiration, raw, channel) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, p.d, p.expiration, string(raw), channel)
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrDuplicate // nothing written yet: the replaced versions go below
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	tags := store.IndexedTags(ev)
	for len(tags) > 0 {
		n := min(len(tags), 32)
		args := make([]any, 0, 4*n)
		for _, k := range tags[:n] {
			args = append(args, k[0], k[1], int64(ev.CreatedAt), seq)
		}
		q := "INSERT INTO tags (name, value, created_at, seq) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", n), ",")
		if _, err := tx.Exec(q, args...); err != nil {
			return fmt.Errorf("insert tags: %w", err)
		}
		tags = tags[n:]
	}
	for _, seq := range p.older {
		if err := deleteSeq(tx, seq); err != nil {
			return err
		}
	}
	return nil
}

// replaceable finds the stored versions ev supersedes: one event is kept per
// (pubkey, kind, d), the newest, ties going to the lowest id (NIP-01).
func replaceable(tx *Tx, ev *nostr.Event, d string) ([]int64, error) {
	rows, err := tx.Query(`SELECT seq, id, created_at FROM events WHERE pubkey = ? AND kind = ? AND d = ?`, ev.PubKey, ev.Kind, d)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var older []int64
	for rows.Next() {
		var seq, at int64
		var id string
		if err := rows.Scan(&seq, &id, &at); err != nil {
			return nil, err
		}
		if at > int64(ev.CreatedAt) || (at == int64(ev.CreatedAt) && id <= ev.ID) {
			return nil, reject("duplicate: a newer version of this replaceable event is stored")
		}
		older = append(older, seq)
	}
	return older, rows.Err()
}

// addrDeleted reports whether a NIP-09 deletion by ev's author covers ev's
// address at or after ev's created_at.
func addrDeleted(tx *Tx, ev *nostr.Event) (bool, error) {
	addr := fmt.Sprintf("%d:%s:%s", ev.Kind, ev.PubKey, ev.Tags.GetD())
	var n int
	err := tx.QueryRow(`SELECT COUNT(*) FROM tags t CROSS JOIN events e ON e.seq = t.seq
		WHERE t.name = 'a' AND t.value = ? AND e.kind = ? AND e.pubkey = ? AND e.created_at >= ?`,
		addr, kinds.Deletion, ev.PubKey, int64(ev.CreatedAt)).Scan(&n)
	return n > 0, err
}

// applyDeletion removes what a NIP-09 deletion names, if its author wrote it.
func applyDeletion(tx *Tx, del *nostr.Event) error {
	for _, tag := range del.Tags {
		if len(tag) < 2 {
			continue
		}
		switch tag[0] {
		case "e":
			var seq int64
			err := tx.QueryRow(`SELECT seq FROM events WHERE id = ? AND pubkey = ? AND kind != ?`, tag[1], del.PubKey, kinds.Deletion).Scan(&seq)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return fmt.Errorf("error: %w", err)
			}
			if err := deleteSeq(tx, seq); err != nil {
				return err
			}
		case "a":
			addr, err := kinds.ParseAddress(tag[1])
			if err != nil || addr.PubKey != del.PubKey {
				continue // only the canonical spelling names an address
			}
			if err := deleteWhere(tx, `pubkey = ? AND kind = ? AND d = ? AND created_at <= ?`, addr.PubKey, addr.Kind, addr.D, int64(del.CreatedAt)); err != nil {
				return err
			}
		}
	}
	return nil
}

func deleteByID(tx *Tx, id string) error {
	var seq int64
	err := tx.QueryRow(`SELECT seq FROM events WHERE id = ?`, id).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("error: %w", err)
	}
	return deleteSeq(tx, seq)
}

func deleteSeq(tx *Tx, seq int64) error {
	var raw string
	if err := tx.QueryRow(`SELECT raw FROM events WHERE seq = ?`, seq).Scan(&raw); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	ev := &nostr.Event{}
	if err := ev.UnmarshalJSON([]byte(raw)); err != nil {
		return fmt.Errorf("error: stored event is corrupt: %w", err)
	}
	for _, k := range store.IndexedTags(ev) {
		if _, err := tx.Exec(`DELETE FROM tags WHERE name = ? AND value = ? AND created_at = ? AND seq = ?`,
			k[0], k[1], int64(ev.CreatedAt), seq); err != nil {
			return fmt.Errorf("error: %w", err)
		}
	}
	if _, err := tx.Exec(`DELETE FROM events WHERE seq = ?`, seq); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	return nil
}

func (s *Store) sweep(tx *Tx) error {
	return deleteWhere(tx, `expiration IS NOT NULL AND expiration <= ?`, s.opts.Now().Unix())
}

// deleteWhere deletes every event matching the condition, with its tags.
func deleteWhere(tx *Tx, cond string, args ...any) error {
	rows, err := tx.Query(`SELECT seq FROM events WHERE `+cond, args...)
	if err != nil {
		return fmt.Errorf("error: %w", err)
	}
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			rows.Close()
			return fmt.Errorf("error: %w", err)
		}
		seqs = append(seqs, seq)
	}
	rows.Close()
	for _, seq := range seqs {
		if err := deleteSeq(tx, seq); err != nil {
			return err
		}
	}
	return nil
}

var _ store.Log = (*Store)(nil)

func reject(msg string) error { return &store.Rejection{Msg: msg} }
