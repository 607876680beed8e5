package postgres

import (
	"context"
	"database/sql"

	"github.com/ainb/hive/store"
)

// TagJoin reads events through the tag index.
func (d *db) TagJoin() string { return "tags t JOIN events e ON e.seq = t.seq" }

// In binds the values as one array.
func (d *db) In(a *store.Args, col string, vals []string, not bool) string {
	if not {
		return col + " <> ALL(" + a.Add(vals) + ")"
	}
	return col + " = ANY(" + a.Add(vals) + ")"
}

// InInts binds the values as one integer array; a kind outside INTEGER's
// range is never stored, so it is left out.
func (d *db) InInts(a *store.Args, col string, ks []int) string {
	out := make([]int32, 0, len(ks))
	for _, k := range ks {
		if int(int32(k)) == k {
			out = append(out, int32(k))
		}
	}
	return col + " = ANY(" + a.Add(out) + ")"
}

// HasTag probes the tag rows of event e (the tags_seq index).
func (d *db) HasTag(a *store.Args, name string, vals []string) string {
	return "EXISTS (SELECT 1 FROM tags x WHERE x.seq = e.seq AND x.name = " + a.Add(name) + " AND " + d.In(a, "x.value", vals, false) + ")"
}

// Read runs a query on the reader pool, ? placeholders rewritten to $n.
func (d *db) Read(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return d.r.QueryContext(ctx, Rebind(q), args...)
}

// ReadRow runs a one-row query on the reader pool.
func (d *db) ReadRow(ctx context.Context, q string, args ...any) *sql.Row {
	return d.r.QueryRowContext(ctx, Rebind(q), args...)
}
