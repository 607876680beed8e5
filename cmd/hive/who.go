package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ainb/hive/client"
	"github.com/spf13/cobra"
)

func newWhoCmd() *cobra.Command {
	var listen time.Duration
	cmd := &cobra.Command{
		Use:   "who [CHANNEL] [--listen 4s]",
		Short: "List the members of a channel (or of all yours) with presence, and agents with their working state",
		Long: `List the members of CHANNEL, or of every channel you are a member of, by
name. It listens for --listen to what is live (presence, typing, and the
observer frames your own agents send you), then prints each member's
presence and, for agents, whether they are working: to their owner from
their observer frames (a turn in flight), to everyone else from their typing.`,
		Args: rangeArgs(0, 1, "[CHANNEL]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if listen <= 0 || listen > time.Minute {
				return usageErrorf("--listen %s: give more than 0 and at most 1m", listen)
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				var chans []client.Channel
				if len(args) == 1 {
					ch, err := s.ResolveChannel(ctx, args[0])
					if err != nil {
						return err
					}
					chans = []client.Channel{ch}
				} else {
					var err error
					if chans, err = s.myChannels(ctx); err != nil {
						return err
					}
				}
				states, err := s.Who(ctx, chans, listen)
				if err != nil {
					return err
				}
				if jsonOutput(cmd) {
					for _, st := range states {
						if err := output(cmd, st, nil); err != nil {
							return err
						}
					}
					return nil
				}
				return printWho(humanOut(cmd), states)
			})
		},
	}
	cmd.Flags().DurationVar(&listen, "listen", 4*time.Second, "how long to listen for presence, typing and frames")
	addTimeoutFlag(cmd, 20*time.Second)
	return cmd
}

func printWho(out io.Writer, states []client.MemberState) error {
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tROLE\tPRESENCE\tSTATE")
	for _, st := range states {
		presence, state := st.Presence, "-"
		if presence == "" {
			presence = "-"
		}
		if st.Agent {
			state = agentState(st)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", line(st.Name), line(st.Role), line(presence), line(state))
	}
	return w.Flush()
}

// agentState is an agent's STATE column: its bridge's status (connected,
// idle or working on what, queue, breaker, last error), with the working
// signal of its frames or typing when the status names no mention.
func agentState(st client.MemberState) string {
	working := ""
	if st.Working.Working {
		working = fmt.Sprintf("working %s in #%s (%s)", st.Working.Elapsed.Round(time.Second), st.Working.Channel, st.Working.Source)
	}
	if st.Status == nil {
		if working == "" {
			return "idle"
		}
		return working
	}
	s := st.Status.Summary()
	if working != "" && st.Status.Connected && len(st.Status.WorkingOn) == 0 {
		_, rest, _ := strings.Cut(s, ", ")
		return strings.TrimSuffix(working+", "+rest, ", ")
	}
	return s
}
