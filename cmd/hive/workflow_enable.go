package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/workflow"
	"github.com/spf13/cobra"
)

func newWorkflowEnableCmd() *cobra.Command { return workflowToggleCmd(true) }

// workflowToggleCmd is enable (on) or disable: the author publishes the
// definition again, with or without its enabled=false tag.
func workflowToggleCmd(on bool) *cobra.Command {
	verb, what := "enable", "Run a disabled or paused workflow again (its author)"
	if !on {
		verb, what = "disable", "Stop a workflow from starting runs until it is enabled (its author)"
	}
	var channel string
	cmd := &cobra.Command{
		Use:   verb + " NAME",
		Short: what,
		Long: what + `: the definition is published again as a new version
(kind 30460 is addressable by author, so only its author, or a device acting as
the author, can). enable also ends a pause the runner put on the old version
after its run budget (30 runs an hour).`,
		Args: exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withWorkflow(cmd, args[0], channel, func(ctx context.Context, s *hubConn, w client.Workflow, _ *workflow.Definition) error {
				if s.PublicKey() != w.Author {
					names, _ := s.Directory(ctx)
					author := w.Author[:8]
					if names != nil {
						author = names.Name(w.Author)
					}
					return exitWith(exitRefused, fmt.Errorf("only %s, who applied %s, can %s it: an owner or admin may apply their own copy instead (hive workflow apply)", author, w.Name, verb))
				}
				next, err := w.RepublishedNow(ctx, on)
				if err != nil {
					return err
				}
				ev, err := s.Publish(ctx, next)
				if err != nil {
					return err
				}
				return output(cmd, client.Workflow{Name: w.Name, Channel: w.Channel, ChannelName: w.ChannelName, Author: w.Author, Runner: w.Runner,
					Event: ev.ID, CreatedAt: int64(ev.CreatedAt), Enabled: on}, func(o io.Writer) error {
					_, err := fmt.Fprintf(o, "%sd: %s in #%s (version %s)\n", verb, w.Name, w.ChannelName, ev.ID[:8])
					return err
				})
			})
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", "the workflow's channel, when two share its name")
	return cmd
}
