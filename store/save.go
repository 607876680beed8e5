package store

import (
	"database/sql"
	"fmt"
	"strconv"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

func reject(msg string) error { return &Rejection{Msg: msg} }

// storedSQL asks whether the log holds an event of the id.
const storedSQL = `SELECT EXISTS (SELECT 1 FROM events WHERE id = ?)`

// expiredSQL selects the events whose NIP-40 expiration has passed.
const expiredSQL = `expiration IS NOT NULL AND expiration <= ?`

// apply carries out one write, noting in w.seqs the sequence numbers of the
// events it stored.
func (c *Core) apply(tx WriteTx, w *write) error {
	w.seqs = w.seqs[:0]
	if w.op != opSave {
		c.deleted = nil // it may remove a deletion: ask the log from here on
		c.forgetNamed()
		if err := c.flushTexts(tx); err != nil {
			return err
		}
	}
	switch w.op {
	case opDelete:
		return c.deleteByID(tx, w.ev.ID)
	case opSweep:
		return c.deleteWhere(tx, expiredSQL, c.opts.Now().Unix())
	case opExec, opIndex:
		return w.fn(tx)
	}
	p := c.opts.Projector
	stateful := p != nil && p.Stateful(w.ev.Kind)
	pl, err := c.check(tx, w.ev, stateful)
	if err != nil {
		return err
	}
	var derived []*nostr.Event
	if p != nil {
		// Before the event's own deletions apply, so the projector sees their targets.
		if derived, err = p.Apply(c.projectorTx(tx), w.ev); err != nil {
			return err
		}
	}
	seq, err := c.write(tx, w.ev, pl)
	if err != nil {
		return err
	}
	w.seqs = append(w.seqs, seq)
	if w.ev.Kind == kinds.Deletion {
		if err := c.applyDeletion(tx, w.ev); err != nil {
			return err
		}
	}
	for _, d := range derived {
		dp, err := c.check(tx, d, true)
		if err == nil {
			seq, err = c.write(tx, d, dp)
		}
		if err != nil && !IsRefusal(err) {
			return fmt.Errorf("storing derived kind %d: %w", d.Kind, err)
		}
		if err == nil {
			w.seqs = append(w.seqs, seq)
		}
	}
	w.derived = derived
	return nil
}

// plan is what check decided about an event, for write to carry out.
type plan struct {
	d          *string // NULL for regular events
	expiration *int64
	older      []int64 // superseded versions of a replaceable event
	fresh      bool    // the log holds no event of its id
}

// check decides whether ev may be stored, without writing anything. A
// duplicate regular event is caught by write's insert instead, unless lookup
// asks for it now.
func (c *Core) check(tx WriteTx, ev *nostr.Event, lookup bool) (plan, error) {
	var p plan
	if tag := ev.Tags.Find("expiration"); tag != nil {
		exp, err := strconv.ParseInt(tag[1], 10, 64)
		if err != nil {
			return p, reject("invalid: expiration tag is not a unix timestamp")
		}
		if exp <= c.opts.Now().Unix() {
			return p, reject("invalid: event has already expired")
		}
		p.expiration = &exp
	}
	storage := kinds.Classify(ev.Kind).Storage
	switch storage {
	case kinds.Ephemeral, kinds.NeverStored:
		return p, reject(fmt.Sprintf("invalid: kind %d is %s and is never stored", ev.Kind, storage))
	}
	if err := c.db.Refuse(ev); err != nil {
		return p, err
	}
	if gone, err := c.isDeleted(tx, ev); err != nil {
		return p, fmt.Errorf("checking for a deletion: %w", err)
	} else if gone {
		return p, reject("blocked: this event was deleted by its author")
	}
	if stored, known := c.deleted.isStored(ev.ID); known {
		if stored {
			return p, ErrDuplicate
		}
		p.fresh = true
	} else if lookup || storage == kinds.Replaceable || storage == kinds.Addressable {
		var exists bool
		if err := tx.QueryRow(storedSQL, ev.ID).Scan(&exists); err != nil {
			return p, fmt.Errorf("checking for duplicates: %w", err)
		}
		if exists {
			return p, ErrDuplicate
		}
		p.fresh = true
	}
	switch storage {
	case kinds.Replaceable:
		empty := ""
		p.d = &empty
	case kinds.Addressable:
		v := ev.Tags.GetD()
		p.d = &v
		gone, err := c.addrDeleted(tx, ev)
		if err != nil {
			return p, err
		}
		if gone {
			return p, reject("blocked: this address was deleted by its author")
		}
	}
	if p.d != nil {
		older, err := replaceable(tx, ev, *p.d)
		if err != nil {
			return p, err
		}
		p.older = older
	}
	return p, nil
}

// addrDeleted reports whether a NIP-09 deletion by ev's author covers ev's
// address at or after ev's created_at.
func (c *Core) addrDeleted(tx WriteTx, ev *nostr.Event) (bool, error) {
	addr := fmt.Sprintf("%d:%s:%s", ev.Kind, ev.PubKey, ev.Tags.GetD())
	var gone bool
	err := tx.QueryRow(c.addrDeletedSQL, addr, kinds.Deletion, ev.PubKey, int64(ev.CreatedAt)).Scan(&gone)
	return gone, err
}

// replaceableSQL reads the stored versions of an address.
const replaceableSQL = `SELECT seq, id, created_at FROM events WHERE pubkey = ? AND kind = ? AND d = ?`

// replaceable finds the stored versions ev supersedes: one event is kept per
// (pubkey, kind, d), the newest, ties going to the lowest id (NIP-01).
func replaceable(tx WriteTx, ev *nostr.Event, d string) ([]int64, error) {
	rows, err := tx.Query(replaceableSQL, ev.PubKey, ev.Kind, d)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var older []int64
	for rows.Next() {
		var seq, at int64
		var id string
		if err := rows.Scan(&seq, &id, &at); err != nil {
			return nil, err
		}
		if at > int64(ev.CreatedAt) || (at == int64(ev.CreatedAt) && id <= ev.ID) {
			return nil, reject("duplicate: a newer version of this replaceable event is stored")
		}
		older = append(older, seq)
	}
	return older, rows.Err()
}

// write stores ev as check planned it and returns its sequence number.
func (c *Core) write(tx WriteTx, ev *nostr.Event, p plan) (int64, error) {
	raw, err := ev.MarshalJSON()
	if err != nil {
		return 0, fmt.Errorf("encoding event: %w", err)
	}
	row := Row{Event: ev, Raw: string(raw), D: p.d, Expiration: p.expiration, Tags: IndexedTags(ev), Fresh: p.fresh}
	if ch := c.channelOf(tx, ev); ch != "" {
		row.Channel = &ch
	}
	seq, err := c.db.Insert(tx, row)
	if err != nil {
		return 0, err // ErrDuplicate: nothing written yet, the replaced versions go below
	}
	c.deleted.stored(ev)
	if err := c.indexWritten(tx, ev, seq); err != nil {
		return 0, err
	}
	// The versions a replaceable event supersedes are of its own kind, never
	// messages or overlays: the search index has nothing of them.
	if len(p.older) > 0 {
		c.forgetNamed()
		if err := c.db.DeleteSeqs(tx, p.older); err != nil {
			return 0, err
		}
	}
	return seq, nil
}

// channelOf is ChannelOf with the channels of the event itself and of the
// events it names by e read in one query, when ChannelOf needs them.
func (c *Core) channelOf(tx WriteTx, ev *nostr.Event) string {
	var known map[string]string
	return ChannelOf(ev, func(id string) (string, bool) {
		if known == nil {
			known = c.storedChannels(tx, ev)
		}
		ch, ok := known[id]
		return ch, ok
	})
}

// storedChannels maps ev's id and those of its e tags that are stored to
// the channels recorded for them ("" for none). A failed lookup finds none.
func (c *Core) storedChannels(tx WriteTx, ev *nostr.Event) map[string]string {
	ids := []string{ev.ID}
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "e" && c.db.Storable(t[1]) {
			ids = append(ids, t[1])
		}
	}
	known := map[string]string{}
	var a Args
	q := c.db.Lookup(&a, "id", ids, func(cond string) string { return `SELECT id, channel FROM events WHERE ` + cond })
	rows, err := tx.Query(q, a...)
	if err != nil {
		return known
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var ch sql.NullString
		if rows.Scan(&id, &ch) == nil {
			known[id] = ch.String
		}
	}
	return known
}
