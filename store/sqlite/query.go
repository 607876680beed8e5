package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// QueryEvents streams the events matching f, newest first, ties by id.
// A filter with no limit gets the default limit; a larger limit than the
// maximum is clamped here, and the relay refuses it before it gets this far.
func (s *Store) QueryEvents(ctx context.Context, f nostr.Filter) (chan *nostr.Event, error) {
	evs, err := s.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	ch := make(chan *nostr.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	close(ch)
	return ch, nil
}

// Query returns the events matching f, newest first, ties by id.
func (s *Store) Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error) {
	found, err := s.QueryRaw(ctx, f, nil)
	if err != nil {
		return nil, err
	}
	out := make([]*nostr.Event, len(found))
	for i, st := range found {
		out[i] = st.Event
	}
	return out, nil
}

// QueryRaw is Query that also returns each event's stored JSON, narrowed to
// what scope may read (nil: everything).
func (s *Store) QueryRaw(ctx context.Context, f nostr.Filter, scope *store.Scope) ([]store.Stored, error) {
	limit := f.Limit
	switch {
	case f.LimitZero:
		return nil, nil
	case limit <= 0:
		limit = s.opts.DefaultLimit
	case limit > s.opts.MaxLimit:
		limit = s.opts.MaxLimit
	}
	q, args, empty := buildQuery(f, scope, "e.raw", s.opts.Now().Unix())
	if empty {
		return nil, nil
	}
	q += fmt.Sprintf(" LIMIT %d", limit)
	st, cached, err := s.readStmt(q)
	if err != nil {
		return nil, fmt.Errorf("error: query: %w", err)
	}
	if !cached {
		defer st.Close()
	}
	// mattn/go-sqlite3 starts a goroutine for every step of a query whose
	// context can be cancelled; that cost about a third of a page's CPU. The
	// query runs without cancellation and checks ctx between rows instead.
	rows, err := st.QueryContext(context.WithoutCancel(ctx), args...)
	if err != nil {
		return nil, fmt.Errorf("error: query: %w", err)
	}
	defer rows.Close()
	out := make([]store.Stored, 0, min(limit, 64))
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("error: query: %w", err)
		}
		ev := &nostr.Event{}
		if err := ev.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("error: stored event is corrupt: %w", err)
		}
		// SQLite may compare text only up to a NUL byte, so values that differ
		// after one can match: check every row against the filter itself.
		if n := len(out); (n > 0 && out[n-1].Event.ID == ev.ID) || !f.Matches(ev) {
			continue
		}
		out = append(out, store.Stored{Event: ev, Raw: raw})
	}
	return out, rows.Err()
}

// CountEvents satisfies eventstore.Counter (NIP-45). It ignores limit.
func (s *Store) CountEvents(ctx context.Context, f nostr.Filter) (int64, error) {
	return s.CountFilters(ctx, []nostr.Filter{f}, nil)
}

// buildQuery turns a NIP-01 filter into SQL. A single-valued tag condition
// drives the query through the tag index in created_at order, so a channel's
// history is read backwards from the index without sorting the channel.
// empty reports a filter that can match nothing (an empty list).
func buildQuery(f nostr.Filter, scope *store.Scope, cols string, now int64) (q string, args []any, empty bool) {
	names := tagNames(f)
	for _, n := range names {
		if len(f.Tags[n]) == 0 {
			return "", nil, true
		}
	}
	var where []string
	var from, order string
	driver := ""
	for _, n := range names {
		if len(f.Tags[n]) == 1 {
			driver = n
			break
		}
	}
	if driver != "" {
		from = "tags t CROSS JOIN events e ON e.seq = t.seq" // CROSS: the tag index drives, whatever else the filter says
		where = append(where, "t.name = ?", "t.value = ?")
		args = append(args, driver, f.Tags[driver][0])
		if f.Since != nil {
			where = append(where, "t.created_at >= ?")
			args = append(args, int64(*f.Since))
		}
		if f.Until != nil {
			where = append(where, "t.created_at <= ?")
			args = append(args, int64(*f.Until))
		}
		order = "t.created_at DESC, e.id"
	} else {
		from = "events e"
		order = "e.created_at DESC, e.id"
	}
	w, a, empty := conditions(f, names, driver, now)
	if empty {
		return "", nil, true
	}
	where = append(where, w...)
	args = append(args, a...)
	if scope != nil {
		if w, a := scopeSQL(scope, f.Kinds); w != "" {
			where = append(where, w)
			args = append(args, a...)
		}
	}
	q = "SELECT " + cols + " FROM " + from
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return q + " ORDER BY " + order, args, false
}

// conditions renders every filter field except the driving tag.
func conditions(f nostr.Filter, names []string, driver string, now int64) (where []string, args []any, empty bool) {
	in := func(col string, vals []string) {
		where = append(where, col+" IN ("+placeholders(len(vals))+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			return nil, nil, true
		}
		in("e.id", f.IDs)
	}
	if f.Authors != nil {
		if len(f.Authors) == 0 {
			return nil, nil, true
		}
		in("e.pubkey", f.Authors)
	}
	if f.Kinds != nil {
		if len(f.Kinds) == 0 {
			return nil, nil, true
		}
		where = append(where, "e.kind IN ("+placeholders(len(f.Kinds))+")")
		for _, k := range f.Kinds {
			args = append(args, k)
		}
	}
	for _, n := range names {
		if n == driver {
			continue
		}
		vals := f.Tags[n]
		where = append(where, "e.seq IN (SELECT seq FROM tags WHERE name = ? AND value IN ("+placeholders(len(vals))+"))")
		args = append(args, n)
		for _, v := range vals {
			args = append(args, v)
		}
	}
	if f.Since != nil {
		where = append(where, "e.created_at >= ?")
		args = append(args, int64(*f.Since))
	}
	if f.Until != nil {
		where = append(where, "e.created_at <= ?")
		args = append(args, int64(*f.Until))
	}
	where = append(where, "(e.expiration IS NULL OR e.expiration > ?)")
	args = append(args, now)
	return where, args, false
}

// tagNames lists the filter's tag names in a stable order, so equal filters
// produce equal SQL.
func tagNames(f nostr.Filter) []string {
	names := make([]string, 0, len(f.Tags))
	for n := range f.Tags {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// CountFilters counts the events matching any of filters (NIP-45), each event
// once, among those scope may read (nil: all).
func (s *Store) CountFilters(ctx context.Context, filters []nostr.Filter, scope *store.Scope) (int64, error) {
	var ors []string
	var args []any
	now := s.opts.Now().Unix()
	for _, f := range filters {
		w, a, empty := conditions(f, tagNames(f), "", now)
		if empty {
			continue
		}
		for _, n := range tagNames(f) {
			if len(f.Tags[n]) == 0 {
				empty = true
			}
		}
		if empty {
			continue
		}
		ors = append(ors, "("+strings.Join(w, " AND ")+")")
		args = append(args, a...)
	}
	if len(ors) == 0 {
		return 0, nil
	}
	var n int64
	q := "SELECT COUNT(*) FROM events e WHERE (" + strings.Join(ors, " OR ") + ")"
	if scope != nil {
		if w, a := scopeSQL(scope, store.QueriedKinds(filters)); w != "" {
			q += " AND " + w
			args = append(args, a...)
		}
	}
	if err := s.r.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("error: count: %w", err)
	}
	return n, nil
}

// readStmt returns a prepared statement for q on the read pool, cached by SQL
// text (filters of the same shape share one).
func (s *Store) readStmt(q string) (st *sql.Stmt, cached bool, err error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if st := s.rstmts[q]; st != nil {
		return st, true, nil
	}
	if st, err = s.r.Prepare(q); err != nil {
		return nil, false, err
	}
	if len(s.rstmts) < 256 { // beyond that, shapes are rare: leave them uncached
		s.rstmts[q] = st
		return st, true, nil
	}
	return st, false, nil
}
