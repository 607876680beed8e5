package main

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ainb/hive/workflow/runner"
	"github.com/spf13/cobra"
)

func newWorkflowServeCmd() *cobra.Command {
	var config string
	var verbose bool
	var offset time.Duration
	cmd := &cobra.Command{
		Use:   "serve [--config FILE]",
		Short: "Run the workflows bound to a runner key (spec/workflows.md)",
		Long: `Connect to the hub with the runner's own key and its owner's attestation, and
run every workflow applied with --runner naming that key: each trigger claims
one run (exactly once, across restarts), whose card and records are events of
the workflow's channel. The TOML config has hub, pin, key, attestation,
state_dir, [secrets] and [http] allow_hosts (spec/workflows.md). One runner per
key: a second one on the same state_dir is refused.

Without --config it runs the profile's member's own runner on this machine:
its key, its attestation by the member (30 days, renewed when less than a week
is left) and its state in $HIVE_HOME/runners/<npub>/ (no secrets, no http
hosts: give --config for those). hive workflow apply without --runner binds
a workflow to it, adding it to the workflow's channel.`,
		Example: `  hive workflow serve --profile alice
  hive workflow serve --config runner.toml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := serviceLog(cmd, verbose)
			cfg, err := serveConfig(cmd, config, log)
			if err != nil {
				return err
			}
			rn, err := runner.New(cfg, runner.Options{Passphrase: passphraseSource(cmd, false), Log: log, ClockOffset: offset})
			if errors.Is(err, runner.ErrLocked) {
				return exitWith(exitConflict, err)
			}
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return rn.Run(ctx)
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "the runner's TOML config file (default: the profile's own runner)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log every decision")
	cmd.Flags().DurationVar(&offset, "clock-offset", 0, "shift the runner's clock (tests)")
	cmd.Flags().MarkHidden("clock-offset")
	return cmd
}
