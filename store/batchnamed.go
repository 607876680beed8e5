package store

import "github.com/nbd-wtf/go-nostr"

// The events a batch's saves name in e tags (thread parents, the targets
// of reactions, edits and deletions) are read with the batch's first query
// (prefetchDeleted) into Core.named, id -> stored JSON, so the projector's
// rules find them (EventByID) without a query each. It holds what the log
// held at the start of the batch: the batch's own events are not in it (a
// lookup of one asks the log, after the batch's writes so far), and the
// first removal in the batch drops it (forgetNamed).

// namedBy lists the ids ev names in e tags.
func (c *Core) namedBy(ev *nostr.Event) []string {
	var out []string
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "e" && c.db.Storable(t[1]) {
			out = append(out, t[1])
		}
	}
	return out
}

// forgetNamed drops the batch's named events: from here on, ask the log.
func (c *Core) forgetNamed() { c.named = nil }

// namedTx is a write transaction as the projector sees it, with the
// batch's named events at hand.
type namedTx struct {
	WriteTx
	named map[string]string
}

// projectorTx is tx with the batch's named events, if any are known.
func (c *Core) projectorTx(tx WriteTx) WriteTx {
	if c.named == nil {
		return tx
	}
	return namedTx{tx, c.named}
}

// storedRaw is the JSON of the event id as the batch found it stored.
func (t namedTx) storedRaw(id string) (string, bool) {
	raw, ok := t.named[id]
	return raw, ok
}
