package relay

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// namedEvents reads, for each filter of a REQ or COUNT that names ids, the
// stored events it names, whatever its other fields say, and refuses the
// request when the reader may not read one of them (CanRead): spec/auth.md,
// "Filters that target something unreadable are refused". named[i] holds
// filter i's events, newest first (nil for a filter without ids). One read
// by id alone serves both the refusal and the filter's answer (idsAnswer),
// instead of a query to check the ids and another to answer them.
func (c *Conn) namedEvents(filters []nostr.Filter) (named [][]store.Stored, refusal string, err error) {
	for i, f := range filters {
		if len(f.IDs) == 0 {
			continue
		}
		rows, err := c.readIDs(f.IDs)
		if err != nil {
			return nil, "", err
		}
		for j := range rows {
			if !c.relay.canRead(c, &rows[j]) {
				return nil, "restricted: event " + rows[j].ID + " is not readable by you", nil
			}
		}
		if named == nil {
			named = make([][]store.Stored, len(filters))
		}
		named[i] = rows
	}
	return named, "", nil
}

// readIDs reads the stored events of ids, newest first, ties by id.
func (c *Conn) readIDs(ids []string) ([]store.Stored, error) {
	done := c.startRead()
	if done == nil {
		return nil, context.Canceled
	}
	defer done()
	_, max := c.relay.store.Limits()
	var out []store.Stored
	for chunk := range slices.Chunk(ids, max) {
		found, err := c.relay.store.QueryRaw(c.ctx, nostr.Filter{IDs: chunk, Limit: len(chunk)}, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	if len(ids) > max { // several reads: put them in one order
		slices.SortFunc(out, func(a, b store.Stored) int {
			if a.CreatedAt != b.CreatedAt {
				return cmp.Compare(b.CreatedAt, a.CreatedAt)
			}
			return strings.Compare(a.ID, b.ID)
		})
		out = slices.CompactFunc(out, func(a, b store.Stored) bool { return a.ID == b.ID })
	}
	return out, nil
}

// rowLimit is how many events f asks for, within the log's limits.
func (r *Relay) rowLimit(f nostr.Filter) int {
	def, max := r.store.Limits()
	return store.RowLimit(f, def, max)
}

// idsAnswer sends those of named (filter f's events, read by namedEvents and
// readable) that match f's other fields, newest first, up to its limit.
func (c *Conn) idsAnswer(sub *subscription, f nostr.Filter, named []store.Stored, a *answer) {
	want := c.relay.rowLimit(f)
	for i := range named {
		if want == 0 {
			return
		}
		st := &named[i]
		if !matchesRest(f, st) {
			continue
		}
		want--
		if sub.claim(st.ID) {
			a.event(sub.prefix, st.Raw, st.Kind)
		}
	}
}

// matchesRest reports whether st, one of the events f names by id, matches
// f's other fields: from its columns, or decoded when f has tag conditions.
func matchesRest(f nostr.Filter, st *store.Stored) bool {
	switch {
	case f.Kinds != nil && !slices.Contains(f.Kinds, st.Kind),
		f.Authors != nil && !slices.Contains(f.Authors, st.PubKey),
		f.Since != nil && st.CreatedAt < *f.Since,
		f.Until != nil && st.CreatedAt > *f.Until:
		return false
	case len(f.Tags) == 0:
		return true
	}
	ev, err := st.Decode()
	return err == nil && f.Matches(ev)
}
