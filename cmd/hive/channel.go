package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/termtext"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newChannelCmd() *cobra.Command {
	return commandGroup("channel", "Channels: create, list (with unread counts), info, join, leave, add, remove, archive", "",
		newChannelCreateCmd(), newChannelListCmd(), newChannelInfoCmd(),
		channelActionCmd("join CHANNEL", "Join an open channel", "joined", func(ch client.Channel) nostr.Event { return client.ChannelJoin(ch.ID) }),
		channelActionCmd("leave CHANNEL", "Leave a channel", "left", func(ch client.Channel) nostr.Event { return client.ChannelLeave(ch.ID) }),
		channelMemberCmd("add CHANNEL KEY", "Add a member to a channel or set their role (owners and admins)", "added", true),
		channelMemberCmd("remove CHANNEL KEY", "Remove a member from a channel (owners and admins, or yourself)", "removed", false),
		channelActionCmd("archive CHANNEL", "Archive a channel: still readable, closed to writes (owners)", "archived", func(ch client.Channel) nostr.Event { return client.ChannelArchive(ch.ID) }))
}

func newChannelCreateCmd() *cobra.Command {
	var id string
	var private bool
	cmd := &cobra.Command{
		Use:     "create NAME [--id ID] [--private]",
		Short:   "Create a channel; you become its owner",
		Example: "  hive channel create general\n  hive channel create \"Ops room\" --id ops --private",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if id == "" {
				id = client.ChannelIDFor(name)
			}
			if err := client.CheckChannelID(id); err != nil {
				return usageErrorf("%v (give --id)", err)
			}
			vis := client.Open
			if private {
				vis = client.Private
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				ev, err := s.Publish(ctx, client.ChannelCreate(id, name, vis))
				if err != nil {
					return withHint(err, "pick another id with --id, or join it: hive channel join "+id)
				}
				return outputLine(cmd, map[string]any{"id": id, "name": name, "visibility": vis, "event": ev.ID}, "created channel %s (%s, %s)", id, name, vis)
			})
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "channel id (default: from the name)")
	cmd.Flags().BoolVar(&private, "private", false, "only members may read and write")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

func newChannelListCmd() *cobra.Command {
	var all bool
	cmd := hubCmd(&cobra.Command{
		Use:   "list [--all]",
		Short: "List your channels with unread and mention counts (messages by others since your read-state); --all adds the open ones you could join",
		Args:  noArgs,
	}, func(ctx context.Context, s *hubConn, cmd *cobra.Command, _ []string) error {
		chans, err := s.Channels(ctx)
		if err != nil {
			return err
		}
		var mine []string
		var shown []client.Channel
		for _, ch := range chans {
			if ch.Role != "" {
				mine = append(mine, ch.ID)
			}
			if ch.Role != "" || all {
				shown = append(shown, ch)
			}
		}
		unread, err := s.Unread(ctx, mine)
		if err != nil {
			return err
		}
		if jsonOutput(cmd) {
			for _, ch := range shown {
				ch.Members = nil
				if n, ok := unread[ch.ID]; ok {
					ch.Unread, ch.Mentions = &n.Count, &n.Mentions
				}
				if err := output(cmd, ch, nil); err != nil {
					return err
				}
			}
			return nil
		}
		w := tabwriter.NewWriter(humanOut(cmd), 2, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tNAME\tVISIBILITY\tROLE\tUNREAD\tMENTIONS")
		for _, ch := range shown {
			u, at := "-", "-"
			if n, ok := unread[ch.ID]; ok {
				u, at = fmt.Sprint(n.Count), fmt.Sprint(n.Mentions)
			}
			role := ch.Role
			if role == "" {
				role = "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", line(ch.ID), line(ch.Name), line(ch.Visibility), line(role), u, at)
		}
		return w.Flush()
	})
	cmd.Flags().BoolVar(&all, "all", false, "also list channels you are not a member of")
	return cmd
}

func newChannelInfoCmd() *cobra.Command {
	cmd := hubCmd(&cobra.Command{
		Use:   "info CHANNEL",
		Short: "Show a channel's metadata and members",
		Args:  exactArgs(1, "CHANNEL"),
	}, func(ctx context.Context, s *hubConn, cmd *cobra.Command, args []string) error {
		ch, err := s.ResolveChannel(ctx, args[0])
		if err != nil {
			return err
		}
		return output(cmd, ch, func(w io.Writer) error {
			fmt.Fprintf(w, "id:         %s\nname:       %s\nvisibility: %s\ntype:       %s\narchived:   %v\n", line(ch.ID), line(ch.Name), line(ch.Visibility), line(ch.Type), ch.Archived)
			if ch.About != "" {
				fmt.Fprintf(w, "about:      %s\n", termtext.Body(ch.About, "            "))
			}
			pks := make([]string, 0, len(ch.Members))
			for pk := range ch.Members {
				pks = append(pks, pk)
			}
			sort.Strings(pks)
			fmt.Fprintf(w, "members:    %d\n", len(pks))
			for _, pk := range pks {
				fmt.Fprintf(w, "  %-7s %s\n", line(ch.Members[pk]), npub(pk))
			}
			return nil
		})
	})
	return cmd
}

// channelActionCmd is a command that publishes one event about a channel.
func channelActionCmd(use, short, verb string, build func(client.Channel) nostr.Event) *cobra.Command {
	cmd := hubCmd(&cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1, "CHANNEL"),
	}, func(ctx context.Context, s *hubConn, cmd *cobra.Command, args []string) error {
		ch, err := s.ResolveChannel(ctx, args[0])
		if err != nil {
			return err
		}
		ev, err := s.Publish(ctx, build(ch))
		if err != nil {
			return err
		}
		return outputLine(cmd, map[string]any{"channel": ch.ID, verb: true, "event": ev.ID}, "%s %s", verb, ch.ID)
	})
	return cmd
}

// channelMemberCmd adds or removes a member of a channel.
func channelMemberCmd(use, short, verb string, add bool) *cobra.Command {
	var role string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(2, "CHANNEL KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				pk, err := s.ResolveKey(ctx, args[1]) // an npub, hex or a name
				if err != nil {
					return err
				}
				ch, err := s.ResolveChannel(ctx, args[0])
				if err != nil {
					return err
				}
				ev := client.ChannelRemove(ch.ID, pk)
				if add {
					ev = client.ChannelAdd(ch.ID, pk, role)
				}
				stored, err := s.Publish(ctx, ev)
				if err != nil {
					return err
				}
				return outputLine(cmd, map[string]any{"channel": ch.ID, "pubkey": pk, verb: true, "role": role, "event": stored.ID}, "%s %s in %s", verb, npub(pk), ch.ID)
			})
		},
	}
	if add {
		cmd.Flags().StringVar(&role, "role", "", "owner, admin, member (default), guest or bot")
	}
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}
