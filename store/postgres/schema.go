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
		// The projections' version: moved on by every commit that may have
		// changed the projector's tables, so the other instances' writers
		// know when to drop what they cached.
		`CREATE TABLE IF NOT EXISTS log_state (k TEXT PRIMARY KEY, v BIGINT NOT NULL)`,
		`INSERT INTO log_state (k, v) VALUES ('` + projections + `', 0) ON CONFLICT (k) DO NOTHING`,
	}, store.EventIndexes()...)
}
