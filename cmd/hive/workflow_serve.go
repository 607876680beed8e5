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
		Use:   "serve --config FILE",
		Short: "Run the workflows bound to a runner key (spec/workflows.md)",
		Long: `Connect to the hub with the runner's own key and its owner's attestation, and
run every workflow applied with --runner naming that key: each trigger claims
one run (exactly once, across restarts), whose card and records are events of
the workflow's channel. The TOML config has hub, pin, key, attestation,
state_dir, [secrets] and [http] allow_hosts (spec/workflows.md). One runner per
key: a second one on the same state_dir is refused.`,
		Example: `  hive workflow serve --config runner.toml`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := serviceConfig(config, "spec/workflows.md", runner.LoadConfig)
			if err != nil {
				return err
			}
			log := serviceLog(cmd, verbose)
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
	cmd.Flags().StringVar(&config, "config", "", "the runner's TOML config file (required)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log every decision")
	cmd.Flags().DurationVar(&offset, "clock-offset", 0, "shift the runner's clock (tests)")
	cmd.Flags().MarkHidden("clock-offset")
	return cmd
}
