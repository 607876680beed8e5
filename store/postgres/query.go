package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// QueryEvents streams the events matching f, newest first, ties by id.
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
// what scope may read (nil: everything). A filter with no limit gets the
// default limit, a larger one than the maximum is clamped.
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
	var a args
	q, empty := buildQuery(f, scope, &a, s.opts.Now().Unix())
	if empty {
		return nil, nil
	}
	q += " LIMIT " + strconv.Itoa(limit)
	rows, err := s.r.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("error: query: %w", err)
	}
	defer rows.Close()
	out := make([]store.Stored, 0, min(limit, 64))
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("error: query: %w", err)
		}
		ev := &nostr.Event{}
		if err := ev.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("error: stored event is corrupt: %w", err)
		}
		out = append(out, store.Stored{Event: ev, Raw: raw})
	}
	return out, rows.Err()
}

// CountEvents satisfies eventstore.Counter (NIP-45). It ignores limit.
func (s *Store) CountEvents(ctx context.Context, f nostr.Filter) (int64, error) {
	return s.CountFilters(ctx, []nostr.Filter{f}, nil)
}

// CountFilters counts the events matching any of filters (NIP-45), each event
// once, among those scope may read (nil: all).
func (s *Store) CountFilters(ctx context.Context, filters []nostr.Filter, scope *store.Scope) (int64, error) {
	var ors []string
	var a args
	now := s.opts.Now().Unix()
	for _, f := range filters {
		w, empty := conditions(f, tagNames(f), "", &a, now)
		if empty {
			continue
		}
		ors = append(ors, "("+strings.Join(w, " AND ")+")")
	}
	if len(ors) == 0 {
		return 0, nil
	}
	q := "SELECT COUNT(*) FROM events e WHERE (" + strings.Join(ors, " OR ") + ")"
	if scope != nil {
		q += " AND " + scopeSQL(scope, store.QueriedKinds(filters), &a)
	}
	var n int64
	if err := s.r.QueryRowContext(ctx, q, a...).Scan(&n); err != nil {
		return 0, fmt.Errorf("error: count: %w", err)
	}
	return n, nil
}

// Unreadable returns the first of ids that is stored but outside scope, or "".
func (s *Store) Unreadable(ctx context.Context, ids []string, scope *store.Scope) (string, error) {
	if scope == nil || len(ids) == 0 {
		return "", nil
	}
	var a args
	q := "SELECT e.id FROM events e WHERE e.id = ANY(" + a.add(ids) + ") AND NOT " + scopeSQL(scope, nil, &a) + " LIMIT 1"
	var id string
	err := s.r.QueryRowContext(ctx, q, a...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// args collects query arguments and names each one's placeholder.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// buildQuery turns a NIP-01 filter into SQL. A single-valued tag condition
// drives the query through the tag index in created_at order. empty reports a
// filter that can match nothing.
func buildQuery(f nostr.Filter, scope *store.Scope, a *args, now int64) (q string, empty bool) {
	names := tagNames(f)
	driver := ""
	for _, n := range names {
		if vals := storableValues(f.Tags[n]); len(vals) == 1 {
			driver = n
			break
		}
	}
	var where []string
	from, order := "events e", "e.created_at DESC, e.id"
	if driver != "" {
		from = "tags t JOIN events e ON e.seq = t.seq"
		where = append(where, "t.name = "+a.add(driver), "t.value = "+a.add(storableValues(f.Tags[driver])[0]))
		if f.Since != nil {
			where = append(where, "t.created_at >= "+a.add(int64(*f.Since)))
		}
		if f.Until != nil {
			where = append(where, "t.created_at <= "+a.add(int64(*f.Until)))
		}
		order = "t.created_at DESC, e.id"
	}
	w, empty := conditions(f, names, driver, a, now)
	if empty {
		return "", true
	}
	where = append(where, w...)
	if scope != nil {
		where = append(where, scopeSQL(scope, f.Kinds, a))
	}
	return "SELECT e.raw FROM " + from + " WHERE " + strings.Join(where, " AND ") + " ORDER BY " + order, false
}

// conditions renders every filter field except the driving tag. Values that
// PostgreSQL text cannot hold cannot be stored either, so they match nothing.
func conditions(f nostr.Filter, names []string, driver string, a *args, now int64) (where []string, empty bool) {
	if f.IDs != nil {
		ids := storableValues(f.IDs)
		if len(ids) == 0 {
			return nil, true
		}
		where = append(where, "e.id = ANY("+a.add(ids)+")")
	}
	if f.Authors != nil {
		authors := storableValues(f.Authors)
		if len(authors) == 0 {
			return nil, true
		}
		where = append(where, "e.pubkey = ANY("+a.add(authors)+")")
	}
	if f.Kinds != nil {
		if len(f.Kinds) == 0 {
			return nil, true
		}
		ks := make([]int32, 0, len(f.Kinds))
		for _, k := range f.Kinds {
			if int(int32(k)) == k {
				ks = append(ks, int32(k))
			}
		}
		where = append(where, "e.kind = ANY("+a.add(ks)+")")
	}
	for _, n := range names {
		vals := storableValues(f.Tags[n])
		if len(vals) == 0 || !storable(n) {
			return nil, true
		}
		if n == driver {
			continue
		}
		where = append(where, "EXISTS (SELECT 1 FROM tags x WHERE x.seq = e.seq AND x.name = "+a.add(n)+" AND x.value = ANY("+a.add(vals)+"))")
	}
	if f.Since != nil {
		where = append(where, "e.created_at >= "+a.add(int64(*f.Since)))
	}
	if f.Until != nil {
		where = append(where, "e.created_at <= "+a.add(int64(*f.Until)))
	}
	where = append(where, "(e.expiration IS NULL OR e.expiration > "+a.add(now)+")")
	return where, false
}

// scopeSQL renders a reader scope as one condition on the events row e of a
// query for kinds ks (nil: any), with only the gates those kinds have.
func scopeSQL(sc *store.Scope, ks []int, a *args) string {
	authorOnly, recipientOnly, channel := sc.Gates(ks)
	var cases []string
	if len(authorOnly) > 0 {
		cases = append(cases, "WHEN e.kind = ANY("+a.add(int32s(authorOnly))+") THEN e.pubkey = "+a.add(sc.Reader))
	}
	if len(recipientOnly) > 0 {
		r := a.add(sc.Reader)
		cases = append(cases, "WHEN e.kind = ANY("+a.add(int32s(recipientOnly))+") THEN (e.pubkey = "+r+
			" OR EXISTS (SELECT 1 FROM tags s WHERE s.name = 'p' AND s.value = "+r+" AND s.created_at = e.created_at AND s.seq = e.seq))")
	}
	other := "TRUE"
	if channel && len(sc.Hidden) > 0 {
		other = "(e.channel IS NULL OR e.channel <> ALL(" + a.add(sc.Hidden) + "))"
	}
	if len(cases) == 0 {
		return other
	}
	return "(CASE " + strings.Join(cases, " ") + " ELSE " + other + " END)"
}

func int32s(ks []int) []int32 {
	out := make([]int32, len(ks))
	for i, k := range ks {
		out[i] = int32(k)
	}
	return out
}

func storableValues(vs []string) []string {
	for _, v := range vs {
		if !storable(v) {
			out := make([]string, 0, len(vs))
			for _, v := range vs {
				if storable(v) {
					out = append(out, v)
				}
			}
			return out
		}
	}
	return vs
}

// tagNames lists the filter's tag names in a stable order.
func tagNames(f nostr.Filter) []string {
	names := make([]string, 0, len(f.Tags))
	for n := range f.Tags {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
