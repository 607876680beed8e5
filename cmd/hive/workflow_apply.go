package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/workflow"
	"github.com/spf13/cobra"
)

// applyOutput is apply's --json object.
type applyOutput struct {
	Name      string `json:"name"`
	Channel   string `json:"channel"`
	Event     string `json:"event"`
	Runner    string `json:"runner"`
	CreatedAt int64  `json:"created_at"`
}

func newWorkflowApplyCmd() *cobra.Command {
	var runner string
	cmd := &cobra.Command{
		Use:   "apply FILE [--runner NAME|NPUB]",
		Short: "Publish a workflow definition to its channel (owners and admins only)",
		Long: `Validate a workflow file, then publish it as the definition event of its
channel, bound to the runner --runner names (a key that is a member of the
channel). Only the channel's owners and admins (or their devices) may: the hub
refuses anyone else (exit 3). Applying a name again replaces your definition.
Without --runner it is bound to your own runner on this machine (hive workflow
serve without --config), which is added to the channel when it is not in it.`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			d, err := validWorkflowFile(cmd, path)
			if err != nil {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				ch, err := s.ResolveChannel(ctx, d.Channel)
				if err != nil {
					return err
				}
				pk, err := applyRunner(ctx, cmd, s, runner, ch)
				if err != nil {
					return err
				}
				if ch.Members[pk] == "" {
					return usageErrorf("runner %s is not a member of channel %s: add it with `hive channel add %s %s`", runner, ch.Name, ch.ID, runner)
				}
				if err := checkRefs(ctx, cmd, s, d, ch); err != nil {
					return err
				}
				ev, err := s.Publish(ctx, client.WorkflowEvent(ch.ID, d.Name, pk, string(src)))
				var refused *client.RefusedError
				if errors.As(err, &refused) && refused.Prefix == "restricted" {
					return withHint(err, mayApply(ctx, s, ch))
				}
				if err != nil {
					return err
				}
				out := applyOutput{Name: d.Name, Channel: ch.ID, Event: ev.ID, Runner: pk, CreatedAt: int64(ev.CreatedAt)}
				return output(cmd, out, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "applied: %s in #%s (version %s), runner %s\n", d.Name, ch.Name, ev.ID[:8], npub(pk))
					for _, s := range d.On.Schedule {
						for _, sl := range s.Schedule.Slots(time.Now(), 3) {
							fmt.Fprintf(w, "next: %s (%s)\n", sl.At.Format("Mon 2006-01-02 15:04 MST"), sl.At.UTC().Format(time.RFC3339))
						}
					}
					return err
				})
			})
		},
	}
	cmd.Flags().StringVar(&runner, "runner", "", "the runner's name or npub: a member of the workflow's channel")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// mayApply names who may apply a workflow in ch: its owners and admins.
func mayApply(ctx context.Context, s *hubConn, ch client.Channel) string {
	names, err := s.Directory(ctx)
	var who []string
	for pk, role := range ch.Members {
		if role == "owner" || role == "admin" {
			name := pk[:8]
			if err == nil {
				name = names.Name(pk)
			}
			who = append(who, name+" ("+role+")")
		}
	}
	sort.Strings(who)
	if len(who) == 0 {
		return "only a channel owner or admin may apply it"
	}
	return "ask one of " + strings.Join(who, ", ") + " to apply it, or to make you an admin"
}

// checkRefs resolves the names and keys the definition uses: an approver
// who is an agent is an error (agents never approve); a name no one has,
// an agent that is no agent, or one outside the channel is a warning with
// the fix.
func checkRefs(ctx context.Context, cmd *cobra.Command, s *hubConn, d *workflow.Definition, ch client.Channel) error {
	warn := func(format string, args ...any) {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: "+format+"\n", args...)
	}
	for _, r := range d.Refs() {
		pk, err := s.ResolveKey(ctx, strings.TrimPrefix(r.Ref, "@"))
		if err != nil {
			warn("%s: %s: %v", r.Where, r.Ref, err)
			continue
		}
		owner, device, err := s.OwnerOf(ctx, pk)
		if err != nil {
			return err
		}
		isAgent := owner != "" && !device
		switch {
		case r.Approver && isAgent:
			return usageErrorf("%s: %s is an agent: agents never approve; name a person, or owner, channel-admins or channel-owners", r.Where, r.Ref)
		case r.Agent && !isAgent:
			warn("%s: %s is not an agent (no owner's attestation on its profile): ask_agent waits for an agent's receipt", r.Where, r.Ref)
		case r.Agent && ch.Members[pk] == "":
			warn("%s: %s is not a member of channel %s: add it with `hive channel add %s %s`", r.Where, r.Ref, ch.Name, ch.ID, r.Ref)
		}
	}
	return nil
}
