package sqlite

import "github.com/ainb/hive/store"

// schema is plain SQL that the PostgreSQL log mirrors: no SQLite-only column
// types, the event's canonical JSON kept verbatim in raw.
func schema() []string {
	return append([]string{
		`CREATE TABLE IF NOT EXISTS events (
			seq        INTEGER PRIMARY KEY,
			id         TEXT    NOT NULL UNIQUE,
			pubkey     TEXT    NOT NULL,
			created_at INTEGER NOT NULL,
			kind       INTEGER NOT NULL,
			d          TEXT,
			expiration INTEGER,
			raw        TEXT    NOT NULL,
			channel    TEXT -- the channel the event belongs to (store.ChannelOf), for read scopes
		)`,
		// One row per distinct single-letter tag (name, value) of an event; exact on
		// both. The primary key is the lookup index itself (one B-tree per tag row,
		// WITHOUT ROWID being SQLite's spelling of a clustered key).
		`CREATE TABLE IF NOT EXISTS tags (
			name       TEXT    NOT NULL,
			value      TEXT    NOT NULL,
			created_at INTEGER NOT NULL,
			seq        INTEGER NOT NULL,
			PRIMARY KEY (name, value, created_at, seq)
		) WITHOUT ROWID`,
	}, store.EventIndexes()...)
}
