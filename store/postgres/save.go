package postgres

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Insert stores the event and its tag rows in one statement, with the
// next sequence number of the transaction (drawn under the write lock, so
// in commit order). A Fresh row's statement is held, sent with the next
// round trip (nothing waits for its answer: the writer knows the id is not
// stored, and a failure aborts the transaction, which the commit reports);
// any other row's asks whether it was stored (one round trip).
func (d *db) Insert(wtx store.WriteTx, row store.Row) (int64, error) {
	tx, ok := wtx.(*Tx)
	if !ok {
		return 0, fmt.Errorf("insert: not the writer's transaction (%T)", wtx)
	}
	ev := row.Event
	names, values := make([]string, len(row.Tags)), make([]string, len(row.Tags))
	for i, k := range row.Tags {
		names[i], values[i] = k[0], k[1]
	}
	seq := tx.top + 1
	args := []any{seq, ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, row.D, row.Expiration, row.Raw, row.Channel, names, values}
	if row.Fresh {
		tx.hold(`WITH ins AS (
				INSERT INTO events (seq, id, pubkey, created_at, kind, d, expiration, raw, channel) OVERRIDING SYSTEM VALUE
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			)
			INSERT INTO tags (name, value, created_at, seq) SELECT x.n, x.v, $4, $1 FROM unnest($10::text[], $11::text[]) AS x(n, v)`, args...)
		tx.top = seq
		return seq, nil
	}
	err := tx.QueryRow(`WITH ins AS (
			INSERT INTO events (seq, id, pubkey, created_at, kind, d, expiration, raw, channel) OVERRIDING SYSTEM VALUE
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (id) DO NOTHING RETURNING seq
		), t AS (
			INSERT INTO tags (name, value, created_at, seq) SELECT x.n, x.v, $4, ins.seq FROM ins, unnest($10::text[], $11::text[]) AS x(n, v)
		)
		SELECT seq FROM ins`, args...).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, store.ErrDuplicate
	}
	if err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	tx.top = seq
	return seq, nil
}

// Storable reports whether PostgreSQL text can hold v (no NUL, valid UTF-8).
func (d *db) Storable(v string) bool { return utf8.ValidString(v) && !strings.Contains(v, "\x00") }

// Refuse refuses an event PostgreSQL text cannot hold: invalid UTF-8 in its
// content, or a tag name or value that is not storable.
func (d *db) Refuse(ev *nostr.Event) error {
	if !utf8.ValidString(ev.Content) {
		return &store.Rejection{Msg: "invalid: content is not valid UTF-8"}
	}
	for _, k := range store.IndexedTags(ev) {
		if !d.Storable(k[0]) || !d.Storable(k[1]) {
			return &store.Rejection{Msg: "invalid: a tag name or value is not valid UTF-8 text (NUL or a broken byte sequence)"}
		}
	}
	return nil
}
