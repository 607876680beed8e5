package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newWorkflowApproveCmd() *cobra.Command {
	var deny bool
	var note string
	cmd := &cobra.Command{
		Use:   "approve RUN [--deny] [--note TEXT]",
		Short: "Approve (or deny) the approval gate a run waits at",
		Long: `React ✅ (or ❌ with --deny) on the approval request of the gate the run RUN
waits at (its whole id, as hive workflow run printed it, or the request names it),
as ✅ and ❌ in hive chat or the web chat do. --note TEXT goes with the decision (the
gate's steps.ID.note) and is posted in the run's thread. Exit 0 once the reaction is
stored (the runner's record follows); 3 when you may not decide (the error names the
approvers; nothing is sent); 4 when the run waits for no approval.`,
		Args: exactArgs(1, "RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				g, err := s.OpenGate(ctx, args[0])
				if err != nil {
					return err
				}
				names, err := s.Directory(ctx)
				if err != nil {
					return err
				}
				me := s.PublicKey()
				owner, device, err := s.OwnerOf(ctx, me)
				if err != nil {
					return err
				}
				who := me
				if device {
					who = owner
				}
				if why := g.Refusal(who, owner != "" && !device, names.Name); why != "" {
					var may []string
					for _, k := range g.Eligible() {
						may = append(may, names.Name(k))
					}
					slices.Sort(may)
					return exitWith(exitRefused, fmt.Errorf("you may not decide run %s's gate %s: %s; who may: %s", g.Run[:8], g.Step, why, strings.Join(may, ", ")))
				}
				reqs, err := s.Query(ctx, nostr.Filter{IDs: []string{g.Request}})
				if err != nil {
					return err
				}
				if len(reqs) == 0 {
					return exitWith(exitNotFound, fmt.Errorf("run %s's approval request %s is gone", g.Run[:8], g.Request))
				}
				emoji, word := client.ApproveEmoji, "approved"
				if deny {
					emoji, word = client.DenyEmoji, "denied"
				}
				if note != "" {
					if _, err := s.Publish(ctx, client.Reply(reqs[0], note)); err != nil {
						return err
					}
				}
				rx := client.Reaction(reqs[0], emoji)
				if note != "" {
					rx.Tags = append(rx.Tags, nostr.Tag{"note", note})
				}
				sent, err := s.Publish(ctx, rx)
				if err != nil {
					return err
				}
				out := struct {
					Run      string `json:"run"`
					Step     string `json:"step"`
					Decision string `json:"decision"`
					Reaction string `json:"reaction"`
				}{g.Run, g.Step, word, sent.ID}
				return output(cmd, out, func(o io.Writer) error {
					_, err := fmt.Fprintf(o, "%s run %s at %s\n", word, g.Run[:8], g.Step)
					return err
				})
			})
		},
	}
	cmd.Flags().BoolVar(&deny, "deny", false, "deny instead of approving")
	cmd.Flags().StringVar(&note, "note", "", "a note that goes with the decision")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}
