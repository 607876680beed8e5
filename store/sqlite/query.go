package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/ainb/hive/store"
)

// TagJoin: CROSS JOIN makes the tag index drive, whatever else the filter says.
func (d *db) TagJoin() string { return "tags t CROSS JOIN events e ON e.seq = t.seq" }

// In renders a few values as placeholders (cheaper to test per row), padded
// to a power of two by repeating the last so that few statement shapes exist;
// many as one JSON array parameter.
func (d *db) In(a *store.Args, col string, vals []string, not bool) string {
	op := " IN ("
	if not {
		op = " NOT IN ("
	}
	if len(vals) > 64 {
		j, _ := json.Marshal(vals)
		return col + op + "SELECT value FROM json_each(" + a.Add(string(j)) + "))"
	}
	n := 1
	for n < len(vals) {
		n *= 2
	}
	for i := 0; i < n; i++ {
		a.Add(vals[min(i, len(vals)-1)])
	}
	return col + op + placeholders(n) + ")"
}

// InInts renders one placeholder per value.
func (d *db) InInts(a *store.Args, col string, ks []int) string {
	for _, k := range ks {
		a.Add(k)
	}
	return col + " IN (" + placeholders(len(ks)) + ")"
}

// HasTag looks the values up in the tag index, which has no index on seq.
func (d *db) HasTag(a *store.Args, name string, vals []string) string {
	return "e.seq IN (SELECT seq FROM tags WHERE name = " + a.Add(name) + " AND " + d.In(a, "value", vals, false) + ")"
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// Read runs a query through the read pool's statement cache. mattn/go-sqlite3
// starts a goroutine for every step of a query whose context can be
// cancelled; that cost about a third of a page's CPU. The query runs without
// cancellation, and store.Core checks ctx between rows instead.
func (d *db) Read(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, cached, err := d.readStmt(q)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(context.WithoutCancel(ctx), args...)
	if !cached {
		st.Close() // closes for good once rows are closed
	}
	return rows, err
}

// ReadRow runs a one-row query (a COUNT) with cancellation.
func (d *db) ReadRow(ctx context.Context, q string, args ...any) *sql.Row {
	return d.r.QueryRowContext(ctx, q, args...)
}

// readStmt returns a prepared statement for q on the read pool, cached by SQL
// text (filters of the same shape share one).
func (d *db) readStmt(q string) (st *sql.Stmt, cached bool, err error) {
	d.rmu.Lock()
	defer d.rmu.Unlock()
	if st := d.rstmts[q]; st != nil {
		return st, true, nil
	}
	if st, err = d.r.Prepare(q); err != nil {
		return nil, false, err
	}
	if len(d.rstmts) < 256 { // beyond that, shapes are rare: leave them uncached
		d.rstmts[q] = st
		return st, true, nil
	}
	return st, false, nil
}
