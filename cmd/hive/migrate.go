package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newMigrateCmd() *cobra.Command {
	var from, to, adminFlag string
	cmd := &cobra.Command{
		Use:   "migrate --from DIR --to postgres://...",
		Short: "Copy a SQLite hub's event log into PostgreSQL through the hub's rules",
		Long: `Copies every event of the SQLite log in DIR, in commit order, into the
PostgreSQL log, through the same rules a live hub applies, so the projections
are rebuilt there as they are here. The events the hub signs itself (channel
snapshots, system rows) are signed anew by the rules, with the hub's key from
DIR, and carry the time of the migration. Stop the hub first. Events the rules
now refuse are listed and not copied. Check the result with
hive admin replay --verify --store URL.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to == "" {
				return exitWith(exitUsage, fmt.Errorf("--to: give the postgres:// URL of the target database"))
			}
			openStore, err := storeOpener(to, "")
			if err != nil {
				return err
			}
			db := filepath.Join(from, "hive.db")
			if _, err := os.Stat(db); err != nil {
				return exitWith(exitNotFound, fmt.Errorf("no event log at %s (use --from DIR, the hub's data directory)", db))
			}
			h, hubKey, err := openOfflineHub(from, adminFlag, openStore)
			if err != nil {
				return err
			}
			defer h.Close()
			res, err := migrate(cmd.Context(), db, h.Store, hubKey.PublicHex)
			if err == nil {
				err = analyze(cmd.Context(), h.Store)
			}
			output(cmd, map[string]any{"copied": res.copied, "already_there": res.dup, "signed_anew": res.resigned, "refused": res.refused}, func(out io.Writer) error {
				fmt.Fprintf(out, "copied %d events, %d already there, %d hub-signed events signed anew, %d refused\n", res.copied, res.dup, res.resigned, len(res.refused))
				for _, r := range res.refused {
					fmt.Fprintln(out, r)
				}
				return nil
			})
			return err
		},
	}
	cmd.Flags().StringVar(&from, "from", ".hive", "data directory of the SQLite hub (holds hive.db and its keys)")
	cmd.Flags().StringVar(&to, "to", "", "postgres:// URL of the target database")
	cmd.Flags().StringVar(&adminFlag, "admin", "", "admin pubkey, as given to hive serve (default: DIR/admin.key)")
	return cmd
}

type migrateResult struct {
	copied, dup, resigned int
	refused               []string
}

// migrate publishes every event of the SQLite log at path into dst, in
// sequence order, pipelined: the write queue keeps the order, so an event's
// rules see every event before it. The events the hub signs itself (channel
// snapshots, system rows) are not copied: the target hub signs them anew as
// the rules call for them, as it does for live writes.
func migrate(ctx context.Context, path string, dst store.Log, hubKey string) (migrateResult, error) {
	var res migrateResult
	src, err := sqlite.OpenReadOnly(path)
	if err != nil {
		return res, err
	}
	defer src.Close()
	rows, err := src.QueryContext(ctx, `SELECT raw FROM events ORDER BY seq`)
	if err != nil {
		return res, fmt.Errorf("reading %s: %w", path, err)
	}
	defer rows.Close()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return res, err
		}
		ev := &nostr.Event{}
		if err := ev.UnmarshalJSON(raw); err != nil {
			return res, fmt.Errorf("a stored event is corrupt: %w", err)
		}
		if ev.PubKey == hubKey && kinds.Classify(ev.Kind).HubSigned {
			res.resigned++
			continue
		}
		wg.Add(1)
		err := dst.PublishAsync(ctx, ev, func(_ []*nostr.Event, err error) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				res.copied++
			case errors.Is(err, store.ErrDuplicate):
				res.dup++
			default:
				res.refused = append(res.refused, fmt.Sprintf("kind %d %s: %v", ev.Kind, ev.ID, err))
			}
		})
		if err != nil {
			wg.Done()
			wg.Wait()
			return res, err
		}
	}
	wg.Wait()
	return res, rows.Err()
}
