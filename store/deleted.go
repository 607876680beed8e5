package store

import (
	"slices"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// deletedSet answers "was this event deleted by its author?" and "is it
// stored already?" for the events a batch saves, from one query at the
// start of the batch instead of two per event. The batch's transaction
// holds the writer (and, on PostgreSQL, the cluster's write lock), so
// nothing else changes the answers meanwhile; the batch's own events and
// deletions are added as they are stored. It belongs to the writer
// goroutine.
type deletedSet struct {
	asked map[string]bool     // the ids looked up
	by    map[string][]string // id -> authors of stored deletions naming it
	have  map[string]bool     // ids of asked that are stored
}

// prefetchDeleted looks up, in one query, the stored deletions naming any
// event the batch saves, which of those events are stored, and the events
// they name in e tags (c.named, batchnamed.go); nil when the batch saves
// nothing.
func (c *Core) prefetchDeleted(tx WriteTx, batch []*write) (*deletedSet, error) {
	var ids, named []string
	for _, w := range batch {
		if w.op == opSave && c.db.Storable(w.ev.ID) {
			ids = append(ids, w.ev.ID)
			named = append(named, c.namedBy(w.ev)...)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	d := &deletedSet{asked: make(map[string]bool, len(ids)), by: map[string][]string{}, have: map[string]bool{}}
	for _, id := range ids {
		d.asked[id] = true
	}
	var a Args
	q := c.db.Lookup(&a, "t.value", ids, func(cond string) string {
		return `SELECT 'd', t.value, e.pubkey FROM ` + c.db.TagJoin() + ` WHERE t.name = 'e' AND ` + cond + ` AND e.kind = ` + a.Add(kinds.Deletion)
	}) + ` UNION ALL ` + c.db.Lookup(&a, "id", ids, func(cond string) string {
		return `SELECT 's', id, '' FROM events WHERE ` + cond
	})
	if len(named) > 0 {
		q += ` UNION ALL ` + c.db.Lookup(&a, "id", named, func(cond string) string {
			return `SELECT 'n', id, raw FROM events WHERE ` + cond
		})
		c.named = map[string]string{}
	}
	rows, err := tx.Query(q, a...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var what, id, v string
		if err := rows.Scan(&what, &id, &v); err != nil {
			return nil, err
		}
		switch what {
		case "d":
			d.by[id] = append(d.by[id], v)
		case "s":
			d.have[id] = true
		case "n":
			c.named[id] = v
		}
	}
	return d, rows.Err()
}

// stored reports whether the batch's set knows that id is stored (known)
// and if it is.
func (d *deletedSet) isStored(id string) (stored, known bool) {
	if d == nil || !d.asked[id] {
		return false, false
	}
	return d.have[id], true
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

// stored keeps the batch's set in step with an event it just stored.
func (d *deletedSet) stored(ev *nostr.Event) {
	if d == nil {
		return
	}
	d.have[ev.ID] = true
	if ev.Kind != kinds.Deletion {
		return
	}
	del := ev
	for _, t := range del.Tags {
		if len(t) >= 2 && t[0] == "e" && d.asked[t[1]] {
			d.by[t[1]] = append(d.by[t[1]], del.PubKey)
		}
	}
}
