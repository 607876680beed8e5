package postgres

import (
	"database/sql"
	"slices"
	"strconv"
	"strings"

	"github.com/ainb/hive/store"
)

// Tx is the write transaction handed to projectors. Its methods take SQL with
// ? placeholders, the spelling the hub's projection SQL shares with the SQLite
// log, and rewrite them to PostgreSQL's $n.
type Tx struct {
	tx *sql.Tx
	d  *db
}

var _ store.CommitTx = (*Tx)(nil)

// Begin starts a write transaction holding the cluster-wide write lock. If
// another instance committed since this writer last held it, the projector
// drops what it cached: the tables moved under it.
func (d *db) Begin() (store.CommitTx, error) {
	sqlTx, err := d.w.Begin()
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
	if top != d.lastSeq {
		d.lastSeq = top
		store.NotifyRolledBack(d.opts.Projector)
	}
	return &Tx{tx: sqlTx, d: d}, nil
}

// Commit commits, announcing the highest sequence number stored to the
// other instances with the commit. The sequence numbers are marked as this
// process's before any follower can see them.
func (t *Tx) Commit(seqs []int64) error {
	var err error
	if len(seqs) > 0 {
		t.d.own.add(seqs)
		_, err = t.tx.Exec(`SELECT pg_notify($1, $2)`, Channel, strconv.FormatInt(slices.Max(seqs), 10))
	}
	if err == nil {
		err = t.tx.Commit()
	} else {
		t.tx.Rollback()
	}
	if err != nil {
		t.d.own.drop(seqs)
		return err
	}
	if len(seqs) > 0 {
		t.d.lastSeq = max(t.d.lastSeq, slices.Max(seqs))
	}
	return nil
}

// Rollback is sql.Tx.Rollback.
func (t *Tx) Rollback() error { return t.tx.Rollback() }

// Exec is sql.Tx.Exec with ? placeholders.
func (t *Tx) Exec(q string, args ...any) (sql.Result, error) {
	return t.tx.Exec(Rebind(q), portableArgs(args)...)
}

// Query is sql.Tx.Query with ? placeholders.
func (t *Tx) Query(q string, args ...any) (*sql.Rows, error) {
	return t.tx.Query(Rebind(q), portableArgs(args)...)
}

// QueryRow is sql.Tx.QueryRow with ? placeholders.
func (t *Tx) QueryRow(q string, args ...any) *sql.Row {
	return t.tx.QueryRow(Rebind(q), portableArgs(args)...)
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
