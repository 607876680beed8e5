package postgres

import (
	"database/sql"

	"github.com/ainb/hive/store"
	"strconv"
	"strings"
)

// Tx is the write transaction handed to projectors. Its methods take SQL with
// ? placeholders, the spelling the hub's projection SQL shares with the SQLite
// log, and rewrite them to PostgreSQL's $n.
type Tx struct {
	tx *sql.Tx
}

var _ store.WriteTx = (*Tx)(nil)

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
