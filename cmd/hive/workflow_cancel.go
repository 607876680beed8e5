package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/spf13/cobra"
)

func newWorkflowCancelCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cancel RUN",
		Short: "Cancel a run (the workflow's author, a channel owner or admin, or the one who started it)",
		Long: `Ask the run's runner to cancel it (a run request with a cancel tag): the run
stops before its next step, or at once in a wait, with a cancelled record
naming you. Exit 0 once that record is in; 3 when you may not cancel it (the
error names who may); 4 for no such run; 5 when the run has ended already;
6 when --timeout passes first (is the runner running? the request stays).`,
		Args: exactArgs(1, "RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				run, err := s.Run(ctx, args[0])
				if err != nil {
					return err
				}
				if run.Final != "" {
					return exitWith(exitConflict, fmt.Errorf("run %s has ended already (%s)", run.ID[:8], run.Final))
				}
				me, err := s.ActsAs(ctx, s.PublicKey())
				if err != nil {
					return err
				}
				if err := run.MayCancel(me); err != nil {
					return exitWith(exitRefused, err)
				}
				if _, err := s.Publish(ctx, client.CancelRequest(run.Channel, run.Workflow, run.ID)); err != nil {
					return err
				}
				return awaitRun(ctx, cmd, s, runWait{ID: run.ID, Runner: run.Runner, Want: kinds.RunCancelled,
					Shown: "run " + run.ID[:8] + " ", Otherwise: "ended before the cancel: ",
					Late: fmt.Errorf("run %s: no answer from its runner within --timeout %v (is it running? the request stays)", run.ID[:8], timeoutOf(cmd))})
			})
		},
	}
	addTimeoutFlag(cmd, 30*time.Second)
	return cmd
}
