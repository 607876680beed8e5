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
// carries an excerpt. The ranking covers the newest searchWindow matches
// (or limit, if larger) the filter and the scope let through, and as many
// of those whose terms lie close together.
func (c *Core) Search(ctx context.Context, f nostr.Filter, scope *Scope) ([]Hit, error) {
	return c.search(ctx, f, scope, true)
}

// searchWindow is how many matches, newest first, a search ranks: a query
// whose words are in many messages costs the same as one of a few.
const searchWindow = 500

// search is Search; without excerpts when the caller only sends the events.
// It reads the window of matches with their current text, ranks it in Go
// (searchrank.go), then reads the events of the best limit of them. Close
// matches rank first, so when the index can find them (SearchSQL.Near) and
// limit of them are readable, the window is theirs alone.
func (c *Core) search(ctx context.Context, f nostr.Filter, scope *Scope, excerpts bool) ([]Hit, error) {
	limit := c.limit(f)
	if limit == 0 {
		return nil, nil
	}
	q, err := ParseSearch(f.Search)
	if err != nil {
		return nil, err
	}
	s := c.db.Search(q)
	window := max(searchWindow, limit)
	var cands []candidate
	if s.Near != "" && len(q.Terms) > 1 {
		near := s
		near.Match, near.MatchArgs = s.Near, s.NearArgs
		if cands, err = c.matches(ctx, f, q, near, scope, window); err != nil {
			return nil, err
		}
	}
	if len(cands) < limit {
		more, err := c.matches(ctx, f, q, s, scope, window)
		if err != nil {
			return nil, err
		}
		cands = union(cands, more)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	if err := c.rank(ctx, q, cands); err != nil {
		return nil, err
	}
	return c.hits(ctx, q, cands[:min(limit, len(cands))], excerpts)
}

// matches reads the newest window matches of s that pass the filter and
// the scope, with their current text.
func (c *Core) matches(ctx context.Context, f nostr.Filter, q *SearchQuery, s SearchSQL, scope *Scope, window int) ([]candidate, error) {
	var args Args
	where, empty, err := c.searchWhere(ctx, f, q, s, scope, &args)
	if err != nil || empty {
		return nil, err
	}
	return c.window(ctx, "SELECT e.seq, e.created_at, e.id, "+s.Text+" FROM "+s.From+" WHERE "+where+
		" ORDER BY "+s.Newest+" LIMIT "+strconv.Itoa(window), args)
}

// union is a followed by the candidates of b not in a.
func union(a, b []candidate) []candidate {
	if len(a) == 0 {
		return b
	}
	in := make(map[int64]bool, len(a))
	for _, k := range a {
		in[k.seq] = true
	}
	for _, k := range b {
		if !in[k.seq] {
			a = append(a, k)
		}
	}
	return a
}

// window reads the candidates a window query selects.
func (c *Core) window(ctx context.Context, query string, args Args) ([]candidate, error) {
	rows, err := c.db.Read(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("error: search: %w", err)
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var k candidate
		if err := rows.Scan(&k.seq, &k.at, &k.id, &k.text); err != nil {
			return nil, fmt.Errorf("error: search: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// hits reads the events of the ranked candidates, in order, with an
// excerpt of each one's current text when asked.
func (c *Core) hits(ctx context.Context, q *SearchQuery, best []candidate, excerpts bool) ([]Hit, error) {
	seqs := make([]string, len(best))
	for i, k := range best {
		seqs[i] = strconv.FormatInt(k.seq, 10)
	}
	rows, err := c.db.Read(ctx, "SELECT "+storedColumns+", e.seq FROM events e WHERE e.seq IN ("+strings.Join(seqs, ",")+")")
	if err != nil {
		return nil, fmt.Errorf("error: search: %w", err)
	}
	defer rows.Close()
	found := make(map[int64]Hit, len(best))
	var seq int64
	sc := newRowScanner(&seq)
	for rows.Next() {
		st, err := sc.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("error: search: %w", err)
		}
		found[seq] = Hit{Stored: st}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Hit, 0, len(best))
	for _, k := range best {
		if h, ok := found[k.seq]; ok {
			if excerpts {
				h.Excerpt = q.Excerpt(k.text, excerptWords)
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// excerptWords is about how many words an excerpt holds.
const excerptWords = 24

// limit is the number of rows a filter asks for, within the store's limits.
func (c *Core) limit(f nostr.Filter) int { return RowLimit(f, c.opts.DefaultLimit, c.opts.MaxLimit) }

// RowLimit is the number of rows f asks for within a store's default and
// maximum limits (Limits): none for limit 0, the default when it names no
// limit, never more than the maximum.
func RowLimit(f nostr.Filter, def, max int) int {
	if f.LimitZero {
		return 0
	}
	n := f.Limit
	if n <= 0 {
		n = def
	}
	return min(n, max)
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
