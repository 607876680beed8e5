package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ainb/hive/identity"
	"github.com/spf13/cobra"
)

func newAdminCmd() *cobra.Command {
	admin := &cobra.Command{Use: "admin", Short: "Operate on a hub's data directory"}
	var data, adminFlag, storeURL string
	var verify bool
	replay := &cobra.Command{
		Use:   "replay --verify",
		Short: "Rebuild every projection from the event log into a scratch database and compare it with the live one",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !verify {
				return exitWith(exitUsage, fmt.Errorf("replay only runs with --verify (the hub itself rebuilds its projections at every start)"))
			}
			db := filepath.Join(data, "hive.db")
			if _, err := os.Stat(db); err != nil && storeURL == "" {
				return exitWith(exitNotFound, fmt.Errorf("no event log at %s (use --data DIR)", db))
			}
			adminHex := adminFlag
			if adminHex == "" {
				k, err := identity.LoadKeyFile(filepath.Join(data, "admin.key"), identity.EnvOrPrompt(os.LookupEnv, nil))
				if err != nil {
					return exitWith(exitUsage, fmt.Errorf("%w (or give --admin NPUB as passed to hive serve)", err))
				}
				adminHex = k.PublicHex
			} else {
				var err error
				if adminHex, err = identity.ParsePublicKey(adminFlag); err != nil {
					return exitWith(exitUsage, fmt.Errorf("--admin: %w", err))
				}
			}
			diffs, n, err := verifyStore(cmd.Context(), db, storeURL, adminHex)
			if err != nil {
				return err
			}
			output(cmd, map[string]any{"state_events": n, "differences": diffs, "ok": len(diffs) == 0}, func(out io.Writer) error {
				fmt.Fprintf(out, "replayed %d state events; %d differences\n", n, len(diffs))
				for _, d := range diffs {
					fmt.Fprintln(out, d)
				}
				return nil
			})
			if len(diffs) > 0 {
				return exitWith(exitConflict, fmt.Errorf("projections differ from the log"))
			}
			return nil
		},
	}
	replay.Flags().StringVar(&data, "data", ".hive", "data directory of the hub")
	replay.Flags().StringVar(&adminFlag, "admin", "", "admin pubkey, as given to hive serve (default: DATA/admin.key)")
	replay.Flags().StringVar(&storeURL, "store", "", "verify this postgres:// log instead of the SQLite one in --data")
	replay.Flags().BoolVar(&verify, "verify", false, "compare the rebuilt projections with the live ones")
	admin.AddCommand(replay, newMigrateCmd())
	return admin
}
