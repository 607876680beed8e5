package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/manual"
	"github.com/spf13/cobra"
)

// runStarted is run's first --json line.
type runStarted struct {
	Run      string `json:"run"`
	Workflow string `json:"workflow"`
	Channel  string `json:"channel"`
	Request  string `json:"request"`
}

func newWorkflowRunCmd() *cobra.Command {
	var channel string
	var inputs []string
	var wait bool
	cmd := &cobra.Command{
		Use:   "run NAME [--input k=v]... [--wait]",
		Short: "Start a manual run of a workflow",
		Long: `Ask the workflow's runner for a manual run (the workflow needs on: manual:).
The inputs are checked here first: a missing required input, a wrong type or a
value outside its options exits 1 naming the input, and nothing is sent. The
run's id is printed first. With --wait the command follows the run: exit 0
when it finished, 5 when it failed, was cancelled or skipped (run_by), 6 when
--timeout passes first (the run goes on).`,
		Args: exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withWorkflow(cmd, args[0], channel, func(ctx context.Context, s *hubConn, w client.Workflow, d *workflow.Definition) error {
				r, err := manual.Check(w, d, inputs)
				if err != nil {
					return usageErrorf("%s", manual.Message(err))
				}
				id, req, err := r.Start(ctx, s.Client)
				if err != nil {
					return err
				}
				err = output(cmd, runStarted{Run: id, Workflow: w.Name, Channel: w.Channel, Request: req.ID}, func(o io.Writer) error {
					_, err := fmt.Fprintln(o, id)
					return err
				})
				if err != nil || !wait {
					return err
				}
				return awaitRun(ctx, cmd, s, runWait{ID: id, Runner: w.Runner, Want: kinds.RunFinished,
					Late: fmt.Errorf("run %s did not end within --timeout %v; it goes on (hive workflow logs %s)", id[:8], timeoutOf(cmd), id)})
			})
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", "the workflow's channel, when two share its name")
	cmd.Flags().StringArrayVar(&inputs, "input", nil, "an input: NAME=VALUE (repeatable)")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the run until it ends")
	addTimeoutFlag(cmd, 10*time.Minute)
	return cmd
}

// resolveWorkflow finds the workflow named name (in --channel, if given)
// and parses its definition.
func resolveWorkflow(ctx context.Context, s *hubConn, name, channel string) (client.Workflow, *workflow.Definition, error) {
	id, err := channelFlag(ctx, s, channel)
	if err != nil {
		return client.Workflow{}, nil, err
	}
	w, d, err := manual.Find(ctx, s.Client, name, id)
	if errors.Is(err, manual.ErrInvalid) {
		return w, nil, exitWith(exitConflict, errors.New(manual.Message(err)))
	}
	return w, d, err
}

// withWorkflow runs fn with the hub and the workflow named name (in
// channel, if given), its definition parsed.
func withWorkflow(cmd *cobra.Command, name, channel string, fn func(context.Context, *hubConn, client.Workflow, *workflow.Definition) error) error {
	return withHub(cmd, func(ctx context.Context, s *hubConn) error {
		w, d, err := resolveWorkflow(ctx, s, name, channel)
		if err != nil {
			return err
		}
		return fn(ctx, s, w, d)
	})
}
