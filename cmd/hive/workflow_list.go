package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/workflow"
	"github.com/spf13/cobra"
)

// workflowItem is one workflow of list --json (and the head of show's).
type workflowItem struct {
	Name        string   `json:"name"`
	Channel     string   `json:"channel"`
	ChannelName string   `json:"channel_name"`
	Status      string   `json:"status"` // active | invalid | disabled | paused
	Reason      string   `json:"reason"`
	Author      string   `json:"author"`
	Runner      string   `json:"runner"`
	Event       string   `json:"event"`
	CreatedAt   int64    `json:"created_at"`
	Triggers    []string `json:"triggers"`
	Steps       int      `json:"steps"`
}

// viewWorkflow reads a definition event's YAML: its status is invalid
// (with the first problem as the reason) when it does not validate here.
func viewWorkflow(w client.Workflow) (workflowItem, *workflow.Definition) {
	it := workflowItem{Name: w.Name, Channel: w.Channel, ChannelName: w.ChannelName, Status: "active", Author: w.Author,
		Runner: w.Runner, Event: w.Event, CreatedAt: w.CreatedAt, Triggers: []string{}}
	d, err := workflow.Parse(w.Name, []byte(w.Source))
	var errs *workflow.Errors
	switch {
	case errors.As(err, &errs):
		it.Status, it.Reason = "invalid", errs.List[0].String()
	case !w.Enabled:
		it.Status, it.Reason = "disabled", "hive workflow enable "+w.Name+" resumes it"
	case w.Paused != "":
		it.Status, it.Reason = "paused", w.Paused+"; hive workflow enable "+w.Name+" resumes it"
	}
	if d != nil {
		it.Triggers, it.Steps = d.On.Summary(), len(d.Steps)
	}
	return it, d
}

// channelFlag resolves --channel to an id ("" when not given).
func channelFlag(ctx context.Context, s *hubConn, arg string) (string, error) {
	if arg == "" {
		return "", nil
	}
	ch, err := s.ResolveChannel(ctx, arg)
	return ch.ID, err
}

func newWorkflowListCmd() *cobra.Command {
	var channel string
	cmd := &cobra.Command{
		Use:   "list [--channel CH]",
		Short: "The workflows of the channels you are in",
		Long: `List the workflow definitions of the channels you are in (or of --channel):
name, channel, status and reason, triggers, steps and author. With --json one
line per workflow.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				id, err := channelFlag(ctx, s, channel)
				if err != nil {
					return err
				}
				list, err := s.Workflows(ctx, id)
				if err != nil {
					return err
				}
				names, _ := s.Directory(ctx)
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
				if !jsonOutput(cmd) && len(list) > 0 {
					fmt.Fprintln(tw, "NAME\tCHANNEL\tSTATUS\tTRIGGERS\tSTEPS\tAUTHOR")
				}
				for _, w := range list {
					it, _ := viewWorkflow(w)
					err := output(cmd, it, func(io.Writer) error {
						status := it.Status
						if it.Reason != "" {
							status += ": " + it.Reason
						}
						author := it.Author[:8]
						if names != nil {
							author = names.Name(it.Author)
						}
						_, err := fmt.Fprintf(tw, "%s\t#%s\t%s\t%s\t%d\t%s\n", it.Name, it.ChannelName, status, strings.Join(it.Triggers, "; "), it.Steps, author)
						return err
					})
					if err != nil {
						return err
					}
				}
				if !jsonOutput(cmd) && len(list) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "no workflows in the channels you are in (hive workflow apply FILE --runner NAME publishes one)")
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", "only this channel's workflows")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}
