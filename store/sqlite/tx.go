package sqlite

import (
	"database/sql"

	"github.com/ainb/hive/store"
)

// Tx is the write transaction handed to projectors and Exec callbacks. Its
// Exec, Query and QueryRow reuse statements prepared on the writer's connection.
type Tx struct {
	*sql.Tx
	d *db
}

// Begin starts a write transaction, first preparing the statements the last
// one ran unprepared (and completing a checkpoint the checkpointer asked for).
func (d *db) Begin() (store.CommitTx, error) {
	d.prepareWanted()
	d.finishCheckpoint()
	tx, err := d.w.Begin()
	if err != nil {
		return nil, err
	}
	return &Tx{tx, d}, nil
}

// Commit commits; SQLite has no other instance to tell.
func (t *Tx) Commit([]int64, bool) error {
	err := t.Tx.Commit()
	t.d.walGrew()
	return err
}

func (t *Tx) stmt(q string) *sql.Stmt {
	if st := t.d.wstmts[q]; st != nil {
		return t.Tx.Stmt(st)
	}
	t.d.wanted[q] = true
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

func (d *db) prepareWanted() {
	for q := range d.wanted {
		delete(d.wanted, q)
		if len(d.wstmts) >= 512 {
			continue // dynamic SQL; do not let the cache grow without bound
		}
		if st, err := d.w.Prepare(q); err == nil {
			d.wstmts[q] = st
		}
	}
}
