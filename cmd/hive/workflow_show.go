package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ainb/hive/client"
	"github.com/spf13/cobra"
)

// showStep is one step of show --json.
type showStep struct {
	ID     string `json:"id"`
	Action string `json:"action"`
}

// showOutput is show's --json object.
type showOutput struct {
	workflowItem
	Description string     `json:"description"`
	StepList    []showStep `json:"step_list"`
	Next        []nextSlot `json:"next"`
	Source      string     `json:"source"`
}

// findWorkflow resolves a workflow by name among the channels the member is
// in (or in --channel).
func findWorkflow(ctx context.Context, s *hubConn, name, channel string) (client.Workflow, error) {
	id, err := channelFlag(ctx, s, channel)
	if err != nil {
		return client.Workflow{}, err
	}
	list, err := s.Workflows(ctx, id)
	if err != nil {
		return client.Workflow{}, err
	}
	return client.ResolveWorkflow(list, name)
}

func newWorkflowShowCmd() *cobra.Command {
	var channel string
	cmd := &cobra.Command{
		Use:   "show NAME [--channel CH]",
		Short: "A workflow's definition: status, author, runner, triggers with the next slots, steps",
		Long: `Show the workflow named NAME among the channels you are in: its status and
reason, author, runner, version (the definition event), triggers (a schedule with
its next three slots, in its zone and in UTC) and steps. A name two workflows
share exits 5 listing them; --channel picks one.`,
		Args: exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				w, err := findWorkflow(ctx, s, args[0], channel)
				if err != nil {
					return err
				}
				it, d := viewWorkflow(w)
				out := showOutput{workflowItem: it, StepList: []showStep{}, Next: []nextSlot{}, Source: w.Source}
				if d != nil {
					out.Description = d.Description
					for _, st := range d.Steps {
						out.StepList = append(out.StepList, showStep{st.ID, st.Action})
					}
					out.Next = nextSlots(d, time.Now(), 3)
				}
				names, _ := s.Directory(ctx)
				who := func(pk string) string {
					if names == nil {
						return pk[:8]
					}
					return names.Name(pk)
				}
				return output(cmd, out, func(o io.Writer) error {
					status := it.Status
					if it.Reason != "" {
						status += ": " + it.Reason
					}
					fmt.Fprintf(o, "%s in #%s (%s)\n", it.Name, it.ChannelName, status)
					if out.Description != "" {
						fmt.Fprintf(o, "  %s\n", out.Description)
					}
					fmt.Fprintf(o, "  author %s, runner %s, version %s of %s\n", who(it.Author), who(it.Runner), it.Event[:8], time.Unix(it.CreatedAt, 0).UTC().Format(time.RFC3339))
					for _, t := range it.Triggers {
						fmt.Fprintf(o, "  on %s\n", t)
					}
					for _, n := range out.Next {
						fmt.Fprintf(o, "    next %s  %s\n", n.Local, n.UTC)
					}
					for i, st := range out.StepList {
						fmt.Fprintf(o, "  %d. %s (%s)\n", i+1, st.ID, st.Action)
					}
					return nil
				})
			})
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", "the channel, when two workflows share the name")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}
