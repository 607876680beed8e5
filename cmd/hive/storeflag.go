package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/postgres"
	"github.com/ainb/hive/store/sqlite"
)

// storeOpener maps --store to the log the hub opens: "" is the SQLite log
// hive.db in the data directory data, a postgres:// URL a PostgreSQL log
// that several hive instances can share.
func storeOpener(url, data string) (store.Opener, error) {
	switch {
	case url == "":
		path := filepath.Join(data, "hive.db")
		return func(o store.Options) (store.Log, error) { return sqlite.Open(path, o) }, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return func(o store.Options) (store.Log, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			st, err := postgres.Open(ctx, url, o)
			if err != nil {
				return nil, fmt.Errorf("--store: %w", err)
			}
			return st, nil
		}, nil
	}
	return nil, exitWith(exitUsage, fmt.Errorf("--store %q: want a postgres:// URL (leave it out for the SQLite log in --data)", url))
}

// readLog opens a read-only connection to the log of --store url, else to
// the SQLite log at db, for tools that read a log a hub may be writing.
func readLog(db, url string) (*sql.DB, error) {
	if url == "" {
		return sqlite.OpenReadOnly(db)
	}
	if _, err := storeOpener(url, ""); err != nil {
		return nil, err
	}
	return postgres.OpenReadOnly(url)
}

// verifyStore runs replay --verify on the SQLite log at db, or on the
// PostgreSQL log at url when one is given, into a scratch SQLite log.
func verifyStore(ctx context.Context, db, url, admin string) ([]string, int, error) {
	live, err := readLog(db, url)
	if err != nil {
		return nil, 0, err
	}
	defer live.Close()
	dir, err := os.MkdirTemp("", "hive-replay-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	scratch, _ := storeOpener("", dir)
	var q store.Reader = live
	if url != "" {
		q = postgres.Reader(live)
	}
	return hub.VerifyLog(ctx, q, admin, scratch)
}

// analyze refreshes a PostgreSQL log's planner statistics after a bulk load,
// so the first queries use the tag index (autovacuum would, within a minute).
func analyze(ctx context.Context, st store.Log) error {
	if a, ok := st.(interface{ Analyze(context.Context) error }); ok {
		return a.Analyze(ctx)
	}
	return nil
}
