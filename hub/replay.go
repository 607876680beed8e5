package hub

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
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
		return store.EachOfKinds(sqlTx, kinds.StateKinds(), func(ev *nostr.Event) error {
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

// VerifyLog rebuilds every projection of the log live reads (its Reader,
// or a read-only connection to its database) into a scratch log that
// scratch opens, and lists each row that differs from the live tables. The
// live log is only read.
func VerifyLog(ctx context.Context, live store.Reader, admin string, scratch store.Opener) (diffs []string, replayed int, err error) {
	h := &Hub{admin: admin, log: discardLogger(), targets: newChannelCache(16)}
	h.proj = newProjector(h)
	st, err := scratch(store.Options{Projector: h.proj, SweepEvery: -1})
	if err != nil {
		return nil, 0, err
	}
	defer st.Close()
	h.Store = st
	// Copy the log as plain rows (no rules: the rules need the events state
	// events point at), then replay the rules over it exactly as a restart does.
	if err := st.Exec(ctx, func(tx store.WriteTx) error {
		if err := store.CopyRows(live, tx); err != nil {
			return err
		}
		return copyHubKeys(live, tx)
	}); err != nil {
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
		b, err := dumpTable(st.Reader(), t)
		if err != nil {
			return nil, replayed, fmt.Errorf("rebuilt %s: %w", t, err)
		}
		diffs = append(diffs, diffRows(t, a, b)...)
	}
	return diffs, replayed, nil
}

// copyHubKeys copies the keys the log's hubs sign with (hub_keys, not a
// projection) into the scratch log: their 8000s and 8001s count there too.
func copyHubKeys(live store.Reader, tx store.WriteTx) error {
	rows, err := live.Query(`SELECT pubkey FROM hub_keys`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pk string
		if err := rows.Scan(&pk); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO hub_keys (pubkey) VALUES (?) ON CONFLICT (pubkey) DO NOTHING`, pk); err != nil {
			return err
		}
	}
	return rows.Err()
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
