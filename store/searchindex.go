package store

import (
	"database/sql"
	"fmt"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Searchable reports whether events of kind k are in the search index: the
// stored content kinds (messages), by their current text.
func Searchable(k int) bool {
	c := kinds.Classify(k)
	return c.Partition == kinds.Content && c.Storage == kinds.Regular
}

// SearchableKinds lists the kinds Searchable accepts, ascending.
func SearchableKinds() []int {
	var out []int
	for _, k := range kinds.All() {
		if Searchable(k.Num) {
			out = append(out, k.Num)
		}
	}
	return out
}

// overlayTarget is the message an edit or a delete-in-channel applies to
// (its last e tag), or "" for any other event.
func overlayTarget(ev *nostr.Event) string {
	if ev.Kind != kinds.Edit && ev.Kind != kinds.DeleteInChannel {
		return ""
	}
	if t := ev.Tags.FindLast("e"); t != nil {
		return t[1]
	}
	return ""
}

// indexWritten keeps the search index in step with an event just stored, in
// its transaction: a message is indexed by its text; an edit or a
// delete-in-channel makes its target's text current again.
func (c *Core) indexWritten(tx WriteTx, ev *nostr.Event, seq int64) error {
	if Searchable(ev.Kind) {
		c.queueText(seq, ev.Content)
		return nil
	}
	if id := overlayTarget(ev); id != "" {
		return c.refreshText(tx, id)
	}
	return nil
}

// refreshText sets the indexed text of the message id to its current text:
// its newest edit's, else its own; a message deleted in its channel (9005)
// leaves the index. The log holds only the overlays the hub admitted.
func (c *Core) refreshText(tx WriteTx, id string) error {
	if !c.db.Storable(id) {
		return nil
	}
	if err := c.flushTexts(tx); err != nil {
		return err
	}
	var seq int64
	var kind int
	var raw string
	if err := tx.QueryRow(`SELECT seq, kind, raw FROM events WHERE id = ?`, id).Scan(&seq, &kind, &raw); err != nil || !Searchable(kind) {
		return nil // not stored, or not a message: nothing indexed
	}
	msg := &nostr.Event{}
	if err := msg.UnmarshalJSON([]byte(raw)); err != nil {
		return fmt.Errorf("error: stored event is corrupt: %w", err)
	}
	text, deleted, err := c.currentText(tx, msg)
	if err != nil {
		return err
	}
	if deleted {
		err = c.db.UnindexText(tx, []int64{seq})
	} else {
		err = c.db.IndexText(tx, []IndexedText{{Seq: seq, Text: text, Edited: text != msg.Content}})
	}
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return nil
}

// currentText is msg's text after its stored overlays: the newest edit's,
// and whether a delete-in-channel removed it.
func (c *Core) currentText(tx WriteTx, msg *nostr.Event) (text string, deleted bool, err error) {
	over, err := c.overlays(tx.Query, []string{msg.ID})
	if err != nil {
		return "", false, err
	}
	text, deleted = applyText(msg, over[msg.ID])
	return text, deleted, nil
}

// overlays reads the stored edits and deletes-in-channel of the messages
// ids, by target, newest first, with query (a write transaction's or the
// reader's).
func (c *Core) overlays(query func(string, ...any) (*sql.Rows, error), ids []string) (map[string][]*nostr.Event, error) {
	var a Args
	in := c.db.In(&a, "t.value", ids, false)
	rows, err := query(`SELECT e.raw FROM `+c.db.TagJoin()+` WHERE t.name = 'e' AND `+in+` AND e.kind IN (?, ?)
		ORDER BY e.created_at DESC, e.id DESC`, append(a, kinds.Edit, kinds.DeleteInChannel)...)
	if err != nil {
		return nil, fmt.Errorf("error: %w", err)
	}
	defer rows.Close()
	out := map[string][]*nostr.Event{}
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("error: %w", err)
		}
		o := &nostr.Event{}
		if o.UnmarshalJSON([]byte(raw)) == nil {
			if id := overlayTarget(o); id != "" {
				out[id] = append(out[id], o)
			}
		}
	}
	return out, rows.Err()
}

// applyText is msg's current text given its overlays, newest first.
func applyText(msg *nostr.Event, overlays []*nostr.Event) (text string, deleted bool) {
	text = msg.Content
	edited := false
	for _, o := range overlays {
		switch {
		case o.Kind == kinds.DeleteInChannel:
			deleted = true
		case !edited:
			text, edited = o.Content, true
		}
	}
	return text, deleted
}

// deleteSeqs deletes events with their tag rows and takes them out of the
// search index; a deleted edit or delete-in-channel makes its target's text
// current again.
func (c *Core) deleteSeqs(tx WriteTx, seqs []int64) error {
	c.forgetNamed()
	if err := c.flushTexts(tx); err != nil {
		return err
	}
	var unindex []int64
	var targets []string
	for _, seq := range seqs {
		var kind int
		var raw string
		if err := tx.QueryRow(`SELECT kind, raw FROM events WHERE seq = ?`, seq).Scan(&kind, &raw); err != nil {
			return fmt.Errorf("error: %w", err)
		}
		if Searchable(kind) {
			unindex = append(unindex, seq)
		} else if kind == kinds.Edit || kind == kinds.DeleteInChannel {
			ev := &nostr.Event{}
			if ev.UnmarshalJSON([]byte(raw)) == nil {
				targets = append(targets, overlayTarget(ev))
			}
		}
	}
	if err := c.db.DeleteSeqs(tx, seqs); err != nil {
		return err
	}
	if len(unindex) > 0 {
		if err := c.db.UnindexText(tx, unindex); err != nil {
			return fmt.Errorf("search index: %w", err)
		}
	}
	for _, id := range targets {
		if err := c.refreshText(tx, id); err != nil {
			return err
		}
	}
	return nil
}
