package store

import (
	"slices"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// deletedSet answers "was this event deleted by its author?" for the events
// a batch saves, from one query at the start of the batch instead of one per
// event. The batch's transaction holds the writer (and, on PostgreSQL, the
// cluster's write lock), so nothing else changes the answer meanwhile; the
// batch's own deletions are added as they are stored. It belongs to the
// writer goroutine.
type deletedSet struct {
	asked map[string]bool     // the ids looked up
	by    map[string][]string // id -> authors of stored deletions naming it
}

// prefetchDeleted looks up the stored deletions naming any event the batch
// saves; nil when the batch saves nothing.
func (c *Core) prefetchDeleted(tx WriteTx, batch []*write) (*deletedSet, error) {
	var ids []string
	for _, w := range batch {
		if w.op == opSave && c.db.Storable(w.ev.ID) {
			ids = append(ids, w.ev.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	d := &deletedSet{asked: make(map[string]bool, len(ids)), by: map[string][]string{}}
	for _, id := range ids {
		d.asked[id] = true
	}
	var a Args
	q := `SELECT t.value, e.pubkey FROM ` + c.db.TagJoin() + ` WHERE t.name = 'e' AND ` + c.db.In(&a, "t.value", ids, false) + ` AND e.kind = ` + a.Add(kinds.Deletion)
	rows, err := tx.Query(q, a...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, author string
		if err := rows.Scan(&id, &author); err != nil {
			return nil, err
		}
		d.by[id] = append(d.by[id], author)
	}
	return d, rows.Err()
}

// isDeleted reports whether a stored NIP-09 deletion by ev's author names ev
// in an e tag: from the batch's set if it looked ev up, else with one indexed
// lookup. Deletions are events like any other, their e tags in the tag index;
// the log itself is the record, so every instance sharing it sees every
// deletion.
func (c *Core) isDeleted(tx WriteTx, ev *nostr.Event) (bool, error) {
	if d := c.deleted; d != nil && d.asked[ev.ID] {
		return slices.Contains(d.by[ev.ID], ev.PubKey), nil
	}
	var gone bool
	err := tx.QueryRow(c.deletedSQL, ev.ID, kinds.Deletion, ev.PubKey).Scan(&gone)
	return gone, err
}

// stored keeps the batch's set in step with a deletion it just stored.
func (d *deletedSet) stored(del *nostr.Event) {
	if d == nil || del.Kind != kinds.Deletion {
		return
	}
	for _, t := range del.Tags {
		if len(t) >= 2 && t[0] == "e" && d.asked[t[1]] {
			d.by[t[1]] = append(d.by[t[1]], del.PubKey)
		}
	}
}
