package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// Hit is one search result: the stored event (the message as first sent;
// its edits are overlays) and an excerpt of its current text with the
// matches marked [like this].
type Hit struct {
	Stored
	Excerpt string
}

// Search answers a filter with a NIP-50 search field: the messages whose
// current text matches (edits applied, deleted ones never), narrowed by the
// filter's other fields and by scope inside the query, best match first
// (newest first among equals), limit applied after ranking. Each hit
// carries an excerpt.
func (c *Core) Search(ctx context.Context, f nostr.Filter, scope *Scope) ([]Hit, error) {
	return c.search(ctx, f, scope, true)
}

// search is Search; without excerpts when the caller only sends the events.
func (c *Core) search(ctx context.Context, f nostr.Filter, scope *Scope, excerpts bool) ([]Hit, error) {
	limit := c.limit(f)
	if limit == 0 {
		return nil, nil
	}
	q, err := ParseSearch(f.Search)
	if err != nil {
		return nil, err
	}
	var args Args
	s := c.db.Search(q)
	where, empty, err := c.searchWhere(ctx, f, q, s, scope, &args)
	if err != nil || empty {
		return nil, err
	}
	sel := "e.raw"
	if excerpts {
		sel += ", " + s.Excerpt
		args = append(append(Args{}, s.ExcArgs...), args...)
	}
	args = append(args, s.RankArgs...)
	query := "SELECT " + sel + " FROM " + s.From + " WHERE " + where +
		" ORDER BY " + s.Rank + ", e.created_at DESC, e.id LIMIT " + strconv.Itoa(limit)
	rows, err := c.db.Read(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("error: search: %w", err)
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var h Hit
		dest := []any{&h.Raw}
		if excerpts {
			dest = append(dest, &h.Excerpt)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("error: search: %w", err)
		}
		h.Event = &nostr.Event{}
		if err := h.Event.UnmarshalJSON(h.Raw); err != nil {
			return nil, fmt.Errorf("error: stored event is corrupt: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// limit is the number of rows a filter asks for, within the store's limits.
func (c *Core) limit(f nostr.Filter) int {
	switch {
	case f.LimitZero:
		return 0
	case f.Limit <= 0:
		return c.opts.DefaultLimit
	}
	return min(f.Limit, c.opts.MaxLimit)
}

// searchWhere renders the WHERE clause of a search filter over the index
// joined to events e: the match, the filter's other fields (kinds narrowed
// to the searchable ones, from: and in: resolved to authors and channels),
// and the reader's scope; the arguments of s.From come first. empty reports
// a search that can match nothing.
func (c *Core) searchWhere(ctx context.Context, f nostr.Filter, q *SearchQuery, s SearchSQL, scope *Scope, args *Args) (string, bool, error) {
	ks := SearchableKinds()
	if f.Kinds != nil {
		ks = slices.DeleteFunc(slices.Clone(f.Kinds), func(k int) bool { return !Searchable(k) })
	}
	if len(ks) == 0 {
		return "", true, nil
	}
	plain := f
	plain.Kinds, plain.Tags, plain.Search = ks, nil, ""
	var err error
	if len(q.From) > 0 {
		if plain.Authors, err = c.narrow(ctx, f.Authors, q.From, c.authorsNamed); err != nil || len(plain.Authors) == 0 {
			return "", true, err
		}
	}
	tags := f.Tags
	if len(q.In) > 0 {
		hs, err := c.narrow(ctx, f.Tags["h"], q.In, c.channelsNamed)
		if err != nil || len(hs) == 0 {
			return "", true, err
		}
		tags = maps(tags, "h", hs)
	}
	conds, a, empty := c.conditions(plain, nil, "", c.opts.Now().Unix())
	if empty {
		return "", true, nil
	}
	*args = append(append(append(*args, s.FromArgs...), s.MatchArgs...), a...)
	where := append([]string{s.Match}, conds...)
	for _, n := range tagNames(nostr.Filter{Tags: tags}) {
		vals := c.storable(tags[n])
		if len(vals) == 0 || !c.db.Storable(n) {
			return "", true, nil
		}
		// Probed per candidate through the tag index's key: a channel's
		// messages are never all read.
		where = append(where, "EXISTS (SELECT 1 FROM tags x WHERE x.name = "+args.Add(n)+" AND "+
			c.db.In(args, "x.value", vals, false)+" AND x.created_at = e.created_at AND x.seq = e.seq)")
	}
	if scope != nil {
		if w := c.scopeSQL(scope, ks, args); w != "" {
			where = append(where, w)
		}
	}
	return strings.Join(where, " AND "), false, nil
}

// maps returns tags with name set to vals, tags itself unchanged.
func maps(tags nostr.TagMap, name string, vals []string) nostr.TagMap {
	out := make(nostr.TagMap, len(tags)+1)
	for k, v := range tags {
		out[k] = v
	}
	out[name] = vals
	return out
}

// narrow resolves names with resolve and keeps those in have (nil: any).
func (c *Core) narrow(ctx context.Context, have, names []string, resolve func(context.Context, []string) ([]string, error)) ([]string, error) {
	found, err := resolve(ctx, names)
	if err != nil || have == nil {
		return found, err
	}
	return slices.DeleteFunc(found, func(v string) bool { return !slices.Contains(have, v) }), nil
}

// countSearch counts the events matching any of filters, some of which
// search, each event once, among those scope may read.
func (c *Core) countSearch(ctx context.Context, filters []nostr.Filter, scope *Scope) (int64, error) {
	var parts []string
	var args Args
	now := c.opts.Now().Unix()
	for _, f := range filters {
		if f.Search == "" {
			w, a, empty := c.conditions(f, tagNames(f), "", now)
			if empty {
				continue
			}
			args = append(args, a...)
			if scope != nil {
				if sw := c.scopeSQL(scope, f.Kinds, &args); sw != "" {
					w = append(w, sw)
				}
			}
			parts = append(parts, "SELECT e.seq FROM events e WHERE "+strings.Join(w, " AND "))
			continue
		}
		q, err := ParseSearch(f.Search)
		if err != nil {
			return 0, err
		}
		s := c.db.Search(q)
		where, empty, err := c.searchWhere(ctx, f, q, s, scope, &args)
		if err != nil {
			return 0, err
		}
		if !empty {
			parts = append(parts, "SELECT e.seq FROM "+s.From+" WHERE "+where)
		}
	}
	if len(parts) == 0 {
		return 0, nil
	}
	var n int64
	if err := c.db.ReadRow(ctx, "SELECT COUNT(*) FROM ("+strings.Join(parts, " UNION ")+") n", args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("error: count: %w", err)
	}
	return n, nil
}

// HasSearch reports whether any of filters carries a NIP-50 search.
func HasSearch(filters []nostr.Filter) bool {
	return slices.ContainsFunc(filters, func(f nostr.Filter) bool { return f.Search != "" })
}
