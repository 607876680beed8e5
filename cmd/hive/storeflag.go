package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/postgres"
)

// storeOpener maps --store to the log the hub opens: "" is the SQLite log
// in the data directory (nil opener), a postgres:// URL a PostgreSQL log
// that several hive instances can share.
func storeOpener(url string) (store.Opener, error) {
	switch {
	case url == "":
		return nil, nil
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

// verifyStore runs replay --verify on the SQLite log at db, or on the
// PostgreSQL log at url when one is given.
func verifyStore(ctx context.Context, db, url, admin string) ([]string, int, error) {
	if url == "" {
		return hub.Verify(ctx, db, admin)
	}
	open, err := storeOpener(url)
	if err != nil {
		return nil, 0, err
	}
	st, err := open(store.Options{SweepEvery: -1})
	if err != nil {
		return nil, 0, err
	}
	defer st.Close()
	return hub.VerifyLog(ctx, st.Reader(), admin)
}

// analyze refreshes a PostgreSQL log's planner statistics after a bulk load,
// so the first queries use the tag index (autovacuum would, within a minute).
func analyze(ctx context.Context, st store.Log) error {
	if a, ok := st.(interface{ Analyze(context.Context) error }); ok {
		return a.Analyze(ctx)
	}
	return nil
}
