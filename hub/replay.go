package hub

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/nbd-wtf/go-nostr"
)

// Rebuild empties the projection tables and replays every state event of the
// log into them, in commit order, through the same rules as live writes.
// It returns how many events it replayed and how many the rules now refuse.
func (h *Hub) Rebuild(ctx context.Context) (replayed, refused int, err error) {
	err = h.Store.Exec(ctx, func(sqlTx store.WriteTx) error {
		replayed, refused = 0, 0
		for _, t := range projectionTables {
			if _, err := sqlTx.Exec("DELETE FROM " + t); err != nil {
				return err
			}
		}
		h.proj.RolledBack() // the tables it cached from are being rebuilt
		t := h.proj.tx(sqlTx, nil)
		return stateEvents(sqlTx, func(ev *nostr.Event) error {
			replayed++
			if _, err := sqlTx.Exec("SAVEPOINT r"); err != nil {
				return err
			}
			if _, err := t.apply(ev); err != nil {
				refused++
				h.log.Warn("state event refused on replay", "id", ev.ID, "kind", ev.Kind, "err", err)
				sqlTx.Exec("ROLLBACK TO r")
			}
			sqlTx.Exec("RELEASE r")
			return nil
		})
	})
	return replayed, refused, err
}

type querier interface {
	Query(string, ...any) (*sql.Rows, error)
}

// stateEvents calls fn with every state event of the log in commit order. It
// reads a page of events at a time, so the log is never all in memory.
func stateEvents(q querier, fn func(*nostr.Event) error) error {
	state := kinds.StateKinds()
	ph := strings.TrimSuffix(strings.Repeat("?,", len(state)), ",")
	args := make([]any, len(state), len(state)+1)
	for i, k := range state {
		args[i] = k
	}
	const page = 64
	query := "SELECT seq, raw FROM events WHERE kind IN (" + ph + ") AND seq > ? ORDER BY seq LIMIT " + fmt.Sprint(page)
	var after int64
	for {
		rows, err := q.Query(query, append(args, after)...)
		if err != nil {
			return err
		}
		var evs []*nostr.Event
		for rows.Next() {
			var raw string
			if err := rows.Scan(&after, &raw); err != nil {
				rows.Close()
				return err
			}
			ev := &nostr.Event{}
			if err := ev.UnmarshalJSON([]byte(raw)); err != nil {
				rows.Close()
				return err
			}
			evs = append(evs, ev)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, ev := range evs {
			if err := fn(ev); err != nil {
				return err
			}
		}
		if len(evs) < page {
			return nil
		}
	}
}

// Verify rebuilds every projection of the log at dbPath into a scratch
// database and lists each row that differs from the live tables. The live
// database is only read.
func Verify(ctx context.Context, dbPath, admin string) (diffs []string, replayed int, err error) {
	live, err := sqlite.OpenReadOnly(dbPath)
	if err != nil {
		return nil, 0, err
	}
	defer live.Close()
	return VerifyLog(ctx, live, admin)
}

// VerifyLog is Verify for any log, read through live (its Reader).
func VerifyLog(ctx context.Context, live store.Reader, admin string) (diffs []string, replayed int, err error) {
	dir, err := os.MkdirTemp("", "hive-replay-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	h := &Hub{admin: admin, log: discardLogger(), targets: newChannelCache(16)}
	h.proj = newProjector(h)
	st, err := sqlite.Open(filepath.Join(dir, "scratch.db"), store.Options{Projector: h.proj})
	if err != nil {
		return nil, 0, err
	}
	defer st.Close()
	h.Store = st
	// Copy the log as plain rows (no rules: the rules need the events state
	// events point at), then replay the rules over it exactly as a restart does.
	rows, err := live.Query(`SELECT seq, id, pubkey, created_at, kind, d, expiration, raw FROM events ORDER BY seq`)
	if err != nil {
		return nil, 0, fmt.Errorf("reading the log: %w", err)
	}
	err = st.Exec(ctx, func(tx store.WriteTx) error {
		for rows.Next() {
			var seq, at int64
			var kind int
			var id, pk, raw string
			var d sql.NullString
			var exp sql.NullInt64
			if err := rows.Scan(&seq, &id, &pk, &at, &kind, &d, &exp, &raw); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO events (seq, id, pubkey, created_at, kind, d, expiration, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, seq, id, pk, at, kind, d, exp, raw); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	rows.Close()
	if err != nil {
		return nil, 0, err
	}
	replayed, _, err = h.Rebuild(ctx)
	if err != nil {
		return nil, replayed, err
	}
	for _, t := range projectionTables {
		a, err := dumpTable(live, t)
		if err != nil {
			return nil, replayed, fmt.Errorf("live %s: %w", t, err)
		}
		b, err := dumpTable(st.ReadDB(), t)
		if err != nil {
			return nil, replayed, fmt.Errorf("rebuilt %s: %w", t, err)
		}
		diffs = append(diffs, diffRows(t, a, b)...)
	}
	return diffs, replayed, nil
}

// dumpTable renders every row of a table as a sorted list of strings.
func dumpTable(db store.Reader, table string) ([]string, error) {
	rows, err := db.Query("SELECT * FROM " + table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprintf("%s=%v", cols[i], v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	sort.Strings(out)
	return out, rows.Err()
}

func diffRows(table string, live, rebuilt []string) []string {
	in := func(xs []string) map[string]bool {
		m := make(map[string]bool, len(xs))
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	l, r := in(live), in(rebuilt)
	var d []string
	for _, x := range live {
		if !r[x] {
			d = append(d, fmt.Sprintf("%s: only in the live projection: %s", table, x))
		}
	}
	for _, x := range rebuilt {
		if !l[x] {
			d = append(d, fmt.Sprintf("%s: only in the rebuilt projection: %s", table, x))
		}
	}
	return d
}
