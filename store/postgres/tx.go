package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"slices"
	"strconv"
	"strings"

	"github.com/ainb/hive/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Tx is the write transaction handed to projectors. Its methods take SQL with
// ? placeholders, the spelling the hub's projection SQL shares with the SQLite
// log, and rewrite them to PostgreSQL's $n. Statements whose answer nobody
// waits for (the search index's) are held and sent with the next statement,
// or with the commit, in one round trip.
type Tx struct {
	q    querier
	d    *db
	held []heldStmt
	err  error // a held statement's failure, which aborted the transaction
	// top is the highest sequence number in the log, this transaction's
	// inserts included: the next insert takes top+1.
	top, first int64
}

// querier is what Tx runs statements on: the writer's connection inside the
// transaction Begin opened on it (or, for the schema, a *sql.Tx).
type querier interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

type heldStmt struct {
	q    string
	args []any
}

var _ store.CommitTx = (*Tx)(nil)

// projections is the log_state key of the version that every commit which
// may have changed the projector's tables moves on.
const projections = "projections"

// Begin starts a write transaction holding the cluster-wide write lock, in
// one round trip: BEGIN, the lock, the projections' version and the log's
// highest sequence number (the transaction's inserts number on from it). If another
// instance changed the projections since this writer last held the lock,
// the projector drops what it cached: the tables moved under it. Commits of
// other instances that only stored messages leave the cache alone.
func (d *db) Begin() (store.CommitTx, error) {
	conn, err := d.writer()
	if err != nil {
		return nil, err
	}
	var version, top int64
	err = d.pipeline(conn, func(b *pgx.Batch) {
		b.Queue(`BEGIN`)
		b.Queue(`SELECT pg_advisory_xact_lock($1)`, writeLock)
		b.Queue(`SELECT v FROM log_state WHERE k = $1`, projections).QueryRow(func(r pgx.Row) error { return r.Scan(&version) })
		b.Queue(`SELECT COALESCE(MAX(seq), 0) FROM events`).QueryRow(func(r pgx.Row) error { return r.Scan(&top) })
	})
	if err != nil {
		d.rollback(conn)
		return nil, err
	}
	if version != d.version {
		d.version = version
		store.NotifyRolledBack(d.opts.Projector)
	}
	return &Tx{q: conn, d: d, top: top, first: top}, nil
}

// writer is the writer's connection, opened again after it was lost.
func (d *db) writer() (*sql.Conn, error) {
	if d.conn != nil {
		if err := d.conn.Raw(func(dc any) error {
			if dc.(*stdlib.Conn).Conn().IsClosed() {
				return driver.ErrBadConn
			}
			return nil
		}); err == nil {
			return d.conn, nil
		}
		d.conn.Close()
		d.conn = nil
	}
	conn, err := d.w.Conn(context.Background())
	if err != nil {
		return nil, err
	}
	d.conn = conn
	return conn, nil
}

// pipeline sends the statements fill queues in one round trip on conn and
// reads every answer.
func (d *db) pipeline(conn *sql.Conn, fill func(*pgx.Batch)) error {
	return conn.Raw(func(dc any) error {
		b := &pgx.Batch{}
		fill(b)
		return dc.(*stdlib.Conn).Conn().SendBatch(context.Background(), b).Close()
	})
}

// rollback ends a failed transaction; a connection that cannot is dropped.
func (d *db) rollback(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
		conn.Raw(func(dc any) error { return dc.(*stdlib.Conn).Conn().Close(context.Background()) })
	}
}

// Commit commits, in one round trip with the held statements: it announces
// the highest sequence number stored to the other instances, and moves the
// projections' version on when the batch may have changed them. The
// sequence numbers are marked as this process's before any follower can
// see them.
func (t *Tx) Commit(seqs []int64, stateChanged bool) error {
	conn := t.q.(*sql.Conn)
	if t.err != nil {
		t.d.rollback(conn)
		return t.err
	}
	if len(seqs) > 0 {
		t.d.own.add(seqs)
	}
	version := t.d.version
	err := t.d.pipeline(conn, func(b *pgx.Batch) {
		t.queueHeld(b)
		if len(seqs) > 0 {
			b.Queue(`SELECT pg_notify($1, $2)`, Channel, strconv.FormatInt(slices.Max(seqs), 10))
		}
		if t.top > t.first {
			// The identity's own counter follows, for any writer that draws from it.
			b.Queue(`SELECT setval(pg_get_serial_sequence('events', 'seq'), $1)`, t.top)
		}
		if stateChanged {
			b.Queue(`UPDATE log_state SET v = v + 1 WHERE k = $1 RETURNING v`, projections).QueryRow(func(r pgx.Row) error { return r.Scan(&version) })
		}
		b.Queue(`COMMIT`)
	})
	if err != nil {
		t.d.rollback(conn)
		t.d.own.drop(seqs)
		return err
	}
	t.d.version = version
	return nil
}

// Rollback rolls the transaction back, dropping the held statements.
func (t *Tx) Rollback() error {
	t.held = nil
	_, err := t.q.ExecContext(context.Background(), `ROLLBACK`)
	return err
}

// hold keeps a statement to send with the next round trip.
func (t *Tx) hold(q string, args ...any) {
	t.held = append(t.held, heldStmt{Rebind(q), portableArgs(args)})
}

func (t *Tx) queueHeld(b *pgx.Batch) {
	for _, h := range t.held {
		b.Queue(h.q, h.args...)
	}
	t.held = nil
}

// flush sends the held statements before a statement of the caller's.
func (t *Tx) flush() error {
	if len(t.held) == 0 {
		return nil
	}
	conn, ok := t.q.(*sql.Conn)
	if !ok {
		held := t.held
		t.held = nil
		for _, h := range held {
			if _, err := t.q.ExecContext(context.Background(), h.q, h.args...); err != nil {
				return err
			}
		}
		return nil
	}
	return t.d.pipeline(conn, t.queueHeld)
}

// Exec is Exec with ? placeholders.
func (t *Tx) Exec(q string, args ...any) (sql.Result, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	return t.q.ExecContext(context.Background(), Rebind(q), portableArgs(args)...)
}

// Query is Query with ? placeholders.
func (t *Tx) Query(q string, args ...any) (*sql.Rows, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	return t.q.QueryContext(context.Background(), Rebind(q), portableArgs(args)...)
}

// QueryRow is QueryRow with ? placeholders. After a held statement's
// failure the row's error is PostgreSQL's "transaction is aborted"; the
// commit then returns the failure itself.
func (t *Tx) QueryRow(q string, args ...any) *sql.Row {
	if err := t.flush(); err != nil {
		t.err = err
	}
	return t.q.QueryRowContext(context.Background(), Rebind(q), portableArgs(args)...)
}

// portableArgs stores booleans as 0 and 1, as SQLite does: the portable
// projection schema has no BOOLEAN, only INTEGER columns.
func portableArgs(args []any) []any {
	var out []any
	for i, a := range args {
		b, ok := a.(bool)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = int64(0)
		if b {
			out[i] = int64(1)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// Rebind rewrites each ? outside quotes to $1, $2, ... in order. SQL that
// already uses $n comes back unchanged.
func Rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
