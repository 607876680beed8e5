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

// Insert stores the event and its tag rows in one statement (one round
// trip): the tag rows are inserted only if the event was.
func (d *db) Insert(tx store.WriteTx, row store.Row) (int64, error) {
	ev := row.Event
	names, values := make([]string, len(row.Tags)), make([]string, len(row.Tags))
	for i, k := range row.Tags {
		names[i], values[i] = k[0], k[1]
	}
	var seq int64
	err := tx.QueryRow(`WITH ins AS (
			INSERT INTO events (id, pubkey, created_at, kind, d, expiration, raw, channel) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (id) DO NOTHING RETURNING seq
		), t AS (
			INSERT INTO tags (name, value, created_at, seq) SELECT x.n, x.v, $3, ins.seq FROM ins, unnest($9::text[], $10::text[]) AS x(n, v)
		)
		SELECT seq FROM ins`,
		ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, row.D, row.Expiration, row.Raw, row.Channel, names, values).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, store.ErrDuplicate
	}
	if err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
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
