package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newMemberCmd() *cobra.Command {
	return commandGroup("member", "Hub membership (NIP-43; hub admins add and remove)", "",
		memberChangeCmd("add NPUB", "Admit a key to the hub (hub admins)", "added", client.MemberAdd),
		memberChangeCmd("remove NPUB", "Remove a key from the hub, with its agents (hub admins)", "removed", client.MemberRemove),
		newMemberListCmd())
}

func memberChangeCmd(use, short, verb string, build func(string) nostr.Event) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1, "NPUB"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pk, err := pubkeyArg(args[0])
			if err != nil {
				return err
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				ev, err := s.Publish(ctx, build(pk))
				if err != nil {
					return err
				}
				return outputLine(cmd, map[string]any{verb: pk, "npub": npub(pk), "event": ev.ID}, "%s %s", verb, npub(pk))
			})
		},
	}
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

func newMemberListCmd() *cobra.Command {
	cmd := hubCmd(&cobra.Command{
		Use:   "list",
		Short: "List the hub's members (one JSON object per member with --json)",
		Args:  noArgs,
	}, func(ctx context.Context, s *hubConn, cmd *cobra.Command, _ []string) error {
		members, err := s.HubMembers(ctx)
		if err != nil {
			return err
		}
		for _, pk := range members {
			if err := output(cmd, map[string]any{"pubkey": pk, "npub": npub(pk)}, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, npub(pk))
				return err
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return cmd
}

// pubkeyArg parses an npub or hex public key argument.
func pubkeyArg(s string) (string, error) {
	pk, err := identity.ParsePublicKey(s)
	if err != nil {
		return "", usageErrorf("%q: %v (want npub1... or 64 hex)", s, err)
	}
	return pk, nil
}
