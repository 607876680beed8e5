package sqlite

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/ainb/hive/store"
)

// createSchema creates the log's tables, the search index and the
// projector's tables. A search index new to an existing log is marked for
// its background build; so is one an older hive wrote with its own copy of
// the text (the table is made again, contentless).
func createSchema(w *sql.DB, opts store.Options) error {
	var index sql.NullString
	if err := w.QueryRow(`SELECT MAX(sql) FROM sqlite_master WHERE name = 'search'`).Scan(&index); err != nil {
		return fmt.Errorf("store schema: %w", err)
	}
	rebuild := index.Valid && !strings.Contains(index.String, "contentless_delete")
	if rebuild {
		// In this order, so a stop in between leaves no table and no progress: a fresh build.
		if _, err := w.Exec(`DELETE FROM search_state; DROP TABLE search`); err != nil {
			return fmt.Errorf("store schema: replacing the search index: %w", err)
		}
	}
	all := append(schema(), searchSchema...)
	if opts.Projector != nil {
		all = append(all, opts.Projector.Schema()...)
	}
	for _, stmt := range all {
		if _, err := w.Exec(stmt); err != nil {
			if strings.Contains(err.Error(), "no such module: fts5") {
				return fmt.Errorf("store schema: this hive was built without SQLite's full-text search: build it with make build (go build -tags 'libsecp256k1 sqlite_fts5')")
			}
			return fmt.Errorf("store schema: %w", err)
		}
	}
	if index.Valid && !rebuild {
		return nil
	}
	if err := store.MarkSearchBackfill(w); err != nil {
		return fmt.Errorf("store schema: %w", err)
	}
	return nil
}

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
