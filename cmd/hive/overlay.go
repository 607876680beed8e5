package main

import (
	"context"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

// overlayCmd publishes an overlay (reaction, edit, delete) on message ID.
func overlayCmd(use, short, verb string, nargs int, build func(target nostr.Event, arg string) nostr.Event) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  rangeArgs(1, nargs, use[len(verb)+1:]),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg := ""
			switch {
			case len(args) > 1 && args[1] != "-":
				arg = args[1]
			case nargs > 1 && verb == "edit": // the new text may come on standard input
				var err error
				if arg, err = textArg(cmd, args, 1); err != nil {
					return err
				}
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				target, err := s.eventArg(ctx, args[0])
				if err != nil {
					return err
				}
				ev, err := s.Publish(ctx, build(target, arg))
				if err != nil {
					return err
				}
				return outputLine(cmd, map[string]any{"target": target.ID, "channel": client.ChannelOf(target), "event": ev.ID, "kind": ev.Kind}, "%s %s", verb, target.ID)
			})
		},
	}
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

func newReactCmd() *cobra.Command {
	return overlayCmd("react ID [EMOJI]", "React to a message (default +)", "react", 2, func(t nostr.Event, emoji string) nostr.Event {
		if emoji == "" {
			emoji = "+"
		}
		return client.Reaction(t, emoji)
	})
}

func newEditCmd() *cobra.Command {
	return overlayCmd("edit ID [TEXT|-]", "Replace the text of your message (or your agent's)", "edit", 2, client.Edit)
}

func newDeleteCmd() *cobra.Command {
	return overlayCmd("delete ID", "Delete a message from its channel (its author, the author's owner, or a channel admin)", "delete", 1, func(t nostr.Event, _ string) nostr.Event {
		return client.Delete(t, "")
	})
}
