package postgres

import "github.com/ainb/hive/store"

// schema mirrors the SQLite log's. Text the log orders or matches by is
// compared bytewise (COLLATE "C"), as SQLite does, whatever the database's
// locale.
func schema() []string {
	return append([]string{
		`CREATE TABLE IF NOT EXISTS events (
			seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
			id         TEXT COLLATE "C" NOT NULL UNIQUE,
			pubkey     TEXT COLLATE "C" NOT NULL,
			created_at BIGINT  NOT NULL,
			kind       INTEGER NOT NULL,
			d          TEXT COLLATE "C",
			expiration BIGINT,
			raw        TEXT    NOT NULL,
			channel    TEXT COLLATE "C"
		)`,
		`CREATE TABLE IF NOT EXISTS tags (
			name       TEXT COLLATE "C" NOT NULL,
			value      TEXT COLLATE "C" NOT NULL,
			created_at BIGINT NOT NULL,
			seq        BIGINT NOT NULL,
			PRIMARY KEY (name, value, created_at, seq)
		)`,
		`CREATE INDEX IF NOT EXISTS tags_seq ON tags (seq)`,
	}, store.EventIndexes()...)
}
