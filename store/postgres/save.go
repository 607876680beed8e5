package postgres

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

func reject(msg string) error { return &store.Rejection{Msg: msg} }

// apply carries out one write, noting in w.seqs the sequence numbers of the
// events it stored.
func (s *Store) apply(tx *Tx, w *write) error {
	w.seqs = w.seqs[:0]
	switch w.op {
	case opDelete:
		return deleteByID(tx, w.ev.ID)
	case opSweep:
		return s.sweep(tx)
	case opExec:
		return w.fn(tx)
	}
	stateful := s.opts.Projector != nil && s.opts.Projector.Stateful(w.ev.Kind)
	p, err := s.check(tx, w.ev, stateful)
	if err != nil {
		return err
	}
	var derived []*nostr.Event
	if s.opts.Projector != nil {
		// Before the event's own deletions apply, so the projector sees their targets.
		if derived, err = s.opts.Projector.Apply(tx, w.ev); err != nil {
			return err
		}
	}
	seq, err := s.write(tx, w.ev, p)
	if err != nil {
		return err
	}
	w.seqs = append(w.seqs, seq)
	if w.ev.Kind == kinds.Deletion {
		if err := applyDeletion(tx, w.ev); err != nil {
			return err
		}
	}
	for _, d := range derived {
		dp, err := s.check(tx, d, true)
		if err == nil {
			seq, err = s.write(tx, d, dp)
		}
		if err != nil && !store.IsRefusal(err) {
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
}

// check decides whether ev may be stored, without writing anything.
func (s *Store) check(tx *Tx, ev *nostr.Event, lookup bool) (plan, error) {
	var p plan
	if tag := ev.Tags.Find("expiration"); tag != nil {
		exp, err := strconv.ParseInt(tag[1], 10, 64)
		if err != nil {
			return p, reject("invalid: expiration tag is not a unix timestamp")
		}
		if exp <= s.opts.Now().Unix() {
			return p, reject("invalid: event has already expired")
		}
		p.expiration = &exp
	}
	storage := kinds.Classify(ev.Kind).Storage
	switch storage {
	case kinds.Ephemeral, kinds.NeverStored:
		return p, reject(fmt.Sprintf("invalid: kind %d is %s and is never stored", ev.Kind, storage))
	}
	if !utf8.ValidString(ev.Content) {
		return p, reject("invalid: content is not valid UTF-8")
	}
	for _, k := range store.IndexedTags(ev) {
		if !storable(k[0]) || !storable(k[1]) {
			return p, reject("invalid: a tag name or value is not valid UTF-8 text (NUL or a broken byte sequence)")
		}
	}
	deleted, err := isDeleted(tx, ev)
	if err != nil {
		return p, err
	}
	if deleted {
		return p, reject("blocked: this event was deleted by its author")
	}
	if lookup || storage == kinds.Replaceable || storage == kinds.Addressable {
		var exists bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM events WHERE id = $1)`, ev.ID).Scan(&exists); err != nil {
			return p, fmt.Errorf("checking for duplicates: %w", err)
		}
		if exists {
			return p, store.ErrDuplicate
		}
	}
	switch storage {
	case kinds.Replaceable:
		empty := ""
		p.d = &empty
	case kinds.Addressable:
		v := ev.Tags.GetD()
		if !storable(v) {
			return p, reject("invalid: the d tag is not valid UTF-8 text")
		}
		p.d = &v
		gone, err := addrDeleted(tx, ev)
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

// storable reports whether PostgreSQL text can hold v (no NUL, valid UTF-8).
func storable(v string) bool { return utf8.ValidString(v) && !strings.Contains(v, "\x00") }

// isDeleted reports whether a stored NIP-09 deletion by ev's author names ev
// by id. The log itself is the record, so every instance sees every deletion.
func isDeleted(tx *Tx, ev *nostr.Event) (bool, error) {
	var gone bool
	err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM tags t JOIN events e ON e.seq = t.seq
		WHERE t.name = 'e' AND t.value = $1 AND e.kind = $2 AND e.pubkey = $3)`, ev.ID, kinds.Deletion, ev.PubKey).Scan(&gone)
	if err != nil {
		return false, fmt.Errorf("checking for deletions: %w", err)
	}
	return gone, nil
}

// write stores ev as check planned it and returns its sequence number.
func (s *Store) write(tx *Tx, ev *nostr.Event, p plan) (int64, error) {
	raw, err := ev.MarshalJSON()
	if err != nil {
		return 0, fmt.Errorf("encoding event: %w", err)
	}
	var channel *string
	if ch := store.ChannelOf(ev, func(id string) (string, bool) { return store.StoredChannel(tx, id) }); ch != "" {
		channel = &ch
	}
	tags := store.IndexedTags(ev)
	names, values := make([]string, len(tags)), make([]string, len(tags))
	for i, k := range tags {
		names[i], values[i] = k[0], k[1]
	}
	// The event and its tag rows in one statement (one round trip): the tag
	// rows are inserted only if the event was.
	var seq int64
	err = tx.QueryRow(`WITH ins AS (
			INSERT INTO events (id, pubkey, created_at, kind, d, expiration, raw, channel) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (id) DO NOTHING RETURNING seq
		), t AS (
			INSERT INTO tags (name, value, created_at, seq) SELECT x.n, x.v, $3, ins.seq FROM ins, unnest($9::text[], $10::text[]) AS x(n, v)
		)
		SELECT seq FROM ins`,
		ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, p.d, p.expiration, string(raw), channel, names, values).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, store.ErrDuplicate // nothing written yet: the replaced versions go below
	}
	if err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	for _, old := range p.older {
		if err := deleteSeq(tx, old); err != nil {
			return 0, err
		}
	}
	return seq, nil
}

// replaceable finds the stored versions ev supersedes: one event is kept per
// (pubkey, kind, d), the newest, ties going to the lowest id (NIP-01).
func replaceable(tx *Tx, ev *nostr.Event, d string) ([]int64, error) {
	rows, err := tx.Query(`SELECT seq, id, created_at FROM events WHERE pubkey = $1 AND kind = $2 AND d = $3`, ev.PubKey, ev.Kind, d)
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
