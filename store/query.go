package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// QueryEvents streams the events matching f, newest first, ties by id.
func (c *Core) QueryEvents(ctx context.Context, f nostr.Filter) (chan *nostr.Event, error) {
	evs, err := c.Query(ctx, f)
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
func (c *Core) Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error) {
	found, err := c.QueryRaw(ctx, f, nil)
	if err != nil {
		return nil, err
	}
	out := make([]*nostr.Event, len(found))
	for i := range found {
		if out[i], err = found[i].Decode(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// QueryRaw is Query that also returns each event's stored JSON, narrowed to
// what scope may read (nil: everything). A filter with no limit gets the
// default limit; a larger limit than the maximum is clamped here, and the
// relay refuses it before it gets this far.
//
// A filter with a NIP-50 search is answered by Search, best match first.
func (c *Core) QueryRaw(ctx context.Context, f nostr.Filter, scope *Scope) ([]Stored, error) {
	if f.Search != "" {
		hits, err := c.search(ctx, f, scope, false)
		out := make([]Stored, len(hits))
		for i, h := range hits {
			out[i] = h.Stored
		}
		return out, err
	}
	limit := c.limit(f)
	if limit == 0 {
		return nil, nil
	}
	q, args, at, empty := c.buildQuery(f, scope, c.opts.Now().Unix())
	if empty {
		return nil, nil
	}
	// Rows are read in created_at order alone, which the index gives without
	// sorting, one past the limit; equal created_at are ordered by id here.
	// Only when the limit cuts through a second's events is the query asked
	// again with the order in full (ties by id: which of them fall inside
	// the limit).
	out, err := c.readRows(ctx, q+" ORDER BY "+at+" LIMIT "+strconv.Itoa(limit+1), args, limit+1)
	if err != nil {
		return nil, err
	}
	if len(out) > limit {
		if out[limit].CreatedAt == out[limit-1].CreatedAt {
			if out, err = c.readRows(ctx, q+" ORDER BY "+at+", e.id LIMIT "+strconv.Itoa(limit), args, limit); err != nil {
				return nil, err
			}
		}
		out = out[:limit]
	}
	slices.SortStableFunc(out, func(a, b Stored) int {
		if a.CreatedAt != b.CreatedAt {
			return cmp.Compare(b.CreatedAt, a.CreatedAt)
		}
		return strings.Compare(a.ID, b.ID)
	})
	out = slices.CompactFunc(out, func(a, b Stored) bool { return a.ID == b.ID })
	if hasNUL(f) {
		out = slices.DeleteFunc(out, func(st Stored) bool {
			ev, err := st.Decode()
			return err != nil || !f.Matches(ev)
		})
	}
	return out, nil
}

// readRows reads the rows of a query that selects storedColumns, at most
// limit of them.
func (c *Core) readRows(ctx context.Context, q string, args Args, limit int) ([]Stored, error) {
	rows, err := c.db.Read(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("error: query: %w", err)
	}
	defer rows.Close()
	out := make([]Stored, 0, min(limit, 128))
	sc := newRowScanner()
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st, err := sc.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("error: query: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// hasNUL reports whether a value f matches on holds a NUL byte. The SQL of
// any other filter is exact, so its rows are not decoded. SQLite compares
// such values in full too (TestNULTagValues), but text functions read C
// strings up to a NUL, so a query that passes one through a function could
// match text that differs after it: the rows of such a filter are decoded
// and checked against the filter itself.
func hasNUL(f nostr.Filter) bool {
	nul := func(vs []string) bool {
		return slices.ContainsFunc(vs, func(v string) bool { return strings.IndexByte(v, 0) >= 0 })
	}
	if nul(f.IDs) || nul(f.Authors) {
		return true
	}
	for n, vs := range f.Tags {
		if strings.IndexByte(n, 0) >= 0 || nul(vs) {
			return true
		}
	}
	return false
}

// CountEvents satisfies eventstore.Counter (NIP-45). It ignores limit.
func (c *Core) CountEvents(ctx context.Context, f nostr.Filter) (int64, error) {
	return c.CountFilters(ctx, []nostr.Filter{f}, nil)
}

// CountFilters counts the events matching any of filters (NIP-45), each event
// once, among those scope may read (nil: all).
func (c *Core) CountFilters(ctx context.Context, filters []nostr.Filter, scope *Scope) (int64, error) {
	if HasSearch(filters) {
		return c.countSearch(ctx, filters, scope)
	}
	var ors []string
	var args Args
	now := c.opts.Now().Unix()
	for _, f := range filters {
		w, a, empty := c.conditions(f, tagNames(f), "", now)
		if empty {
			continue
		}
		ors = append(ors, "("+strings.Join(w, " AND ")+")")
		args = append(args, a...)
	}
	if len(ors) == 0 {
		return 0, nil
	}
	q := "SELECT COUNT(*) FROM events e WHERE (" + strings.Join(ors, " OR ") + ")"
	if scope != nil {
		if w := c.scopeSQL(scope, QueriedKinds(filters), &args); w != "" {
			q += " AND " + w
		}
	}
	var n int64
	if err := c.db.ReadRow(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("error: count: %w", err)
	}
	return n, nil
}

// Unreadable returns the first of ids that is stored but outside scope, or "".
func (c *Core) Unreadable(ctx context.Context, ids []string, scope *Scope) (string, error) {
	ids = c.storable(ids)
	if scope == nil || len(ids) == 0 {
		return "", nil
	}
	var args Args
	in := c.db.In(&args, "e.id", ids, false)
	w := c.scopeSQL(scope, nil, &args)
	if w == "" {
		return "", nil
	}
	rows, err := c.db.Read(ctx, "SELECT e.id FROM events e WHERE "+in+" AND NOT "+w+" LIMIT 1", args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var id string
	if rows.Next() {
		err = rows.Scan(&id)
	}
	if err == nil {
		err = rows.Err()
	}
	return id, err
}

// buildQuery turns a NIP-01 filter into SQL, without its ORDER BY: at is
// the created_at column to order by (descending). A single-valued tag
// condition drives the query through the tag index in created_at order, so
// a channel's history is read backwards from the index without sorting the
// channel. empty reports a filter that can match nothing (an empty list).
func (c *Core) buildQuery(f nostr.Filter, scope *Scope, now int64) (q string, args Args, at string, empty bool) {
	names := tagNames(f)
	driver := ""
	for _, n := range names {
		if len(c.storable(f.Tags[n])) == 1 {
			driver = n
			break
		}
	}
	w, a, empty := c.conditions(f, names, driver, now)
	if empty {
		return "", nil, "", true
	}
	var where []string
	from, at := "events e", "e.created_at DESC"
	if driver != "" {
		from, at = c.db.TagJoin(), "t.created_at DESC"
		where = append(where, "t.name = "+args.Add(driver), "t.value = "+args.Add(c.storable(f.Tags[driver])[0]))
		if f.Since != nil {
			where = append(where, "t.created_at >= "+args.Add(int64(*f.Since)))
		}
		if f.Until != nil {
			where = append(where, "t.created_at <= "+args.Add(int64(*f.Until)))
		}
	}
	where = append(where, w...)
	args = append(args, a...)
	if scope != nil {
		if w := c.scopeSQL(scope, f.Kinds, &args); w != "" {
			where = append(where, w)
		}
	}
	return "SELECT " + storedColumns + " FROM " + from + " WHERE " + strings.Join(where, " AND "), args, at, false
}

// conditions renders every filter field except the driving tag. A value the
// backend cannot store cannot be stored either, so it matches nothing.
func (c *Core) conditions(f nostr.Filter, names []string, driver string, now int64) (where []string, a Args, empty bool) {
	if f.IDs != nil {
		ids := c.storable(f.IDs)
		if len(ids) == 0 {
			return nil, nil, true
		}
		where = append(where, c.db.In(&a, "e.id", ids, false))
	}
	if f.Authors != nil {
		authors := c.storable(f.Authors)
		if len(authors) == 0 {
			return nil, nil, true
		}
		where = append(where, c.db.In(&a, "e.pubkey", authors, false))
	}
	if f.Kinds != nil {
		if len(f.Kinds) == 0 {
			return nil, nil, true
		}
		where = append(where, c.db.InInts(&a, "e.kind", f.Kinds))
	}
	for _, n := range names {
		vals := c.storable(f.Tags[n])
		if len(vals) == 0 || !c.db.Storable(n) {
			return nil, nil, true
		}
		if n != driver {
			where = append(where, c.db.HasTag(&a, n, vals))
		}
	}
	if f.Since != nil {
		where = append(where, "e.created_at >= "+a.Add(int64(*f.Since)))
	}
	if f.Until != nil {
		where = append(where, "e.created_at <= "+a.Add(int64(*f.Until)))
	}
	where = append(where, "(e.expiration IS NULL OR e.expiration > "+a.Add(now)+")")
	return where, a, false
}

// storable keeps the values the backend can store.
func (c *Core) storable(vs []string) []string {
	for i, v := range vs {
		if !c.db.Storable(v) {
			out := append([]string(nil), vs[:i]...)
			for _, v := range vs[i+1:] {
				if c.db.Storable(v) {
					out = append(out, v)
				}
			}
			return out
		}
	}
	return vs
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
