package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/workflow"
	"github.com/spf13/cobra"
)

func newWorkflowDeleteCmd() *cobra.Command {
	var channel string
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a workflow definition (its author, or a channel owner or admin)",
		Long: `Delete a workflow's definition: its author's deletion (kind 5), or a channel
owner's or admin's 9005 for another member's. Its runner starts no run of it
any more; runs already going finish.`,
		Args: exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withWorkflow(cmd, args[0], channel, func(ctx context.Context, s *hubConn, w client.Workflow, _ *workflow.Definition) error {
				if _, err := s.Publish(ctx, w.Deletion(s.PublicKey())); err != nil {
					return err
				}
				return output(cmd, map[string]string{"deleted": w.Name, "channel": w.Channel, "event": w.Event}, func(o io.Writer) error {
					_, err := fmt.Fprintf(o, "deleted: %s in #%s\n", w.Name, w.ChannelName)
					return err
				})
			})
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", "the workflow's channel, when two share its name")
	return cmd
}
