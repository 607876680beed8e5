package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ainb/hive/client"
	"github.com/spf13/cobra"
)

func newInviteCmd() *cobra.Command {
	var uses int
	var expires, revoke string
	cmd := &cobra.Command{
		Use:   "invite [--uses N] [--expires 7d] | --revoke CLAIM|LINK|ID",
		Short: "Make a NIP-43 invite: a claim and a link that admit new keys to the hub",
		Long: `Ask the hub for an invite claim (NIP-43 kind 28935) and print it with its
link. Whoever holds it joins the hub with a new key: hive profile add NAME
--hub URL --new-key --invite LINK, the web chat's "I have an invite", or
flotilla's invite link. Who may make invites is the hub's choice (hive serve
--invites admins, the default, or members, or off); a claim stops admitting
keys once used --uses times, after --expires, when its issuer may no longer
invite, or once a hub admin revoked it (--revoke, with the claim, its link or
its id from --json; the keys it admitted stay members).`,
		Example: `  hive invite                      # one key, within 7 days
  hive invite --uses 5 --expires 1d
  hive invite --json | jq -r .link
  hive invite --revoke 3f2a9c0d1e4b5a6f`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("revoke") {
				return revokeInvite(cmd, revoke)
			}
			if uses < 1 || uses > 1000 {
				return usageErrorf("--uses %d: want 1 to 1000", uses)
			}
			life, err := parseDuration(expires)
			if err != nil {
				return usageErrorf("--expires: %v", err)
			}
			if life < time.Second || life > 365*24*time.Hour {
				return usageErrorf("--expires %s: want from 1s to 365d", expires)
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				inv, err := s.NewInvite(ctx, uses, life)
				if errors.Is(err, client.ErrAuth) {
					return withHint(err, "who may make invites is the hub's choice (hive serve --invites admins|members|off): ask a hub admin for an invite")
				}
				if err != nil {
					return err
				}
				return output(cmd, inv, func(w io.Writer) error {
					fmt.Fprintf(w, "invite for %s: admits %d %s until %s\n", inv.Hub, inv.Uses, plural(inv.Uses, "key", "keys"), inv.Expires.Format(time.RFC3339))
					fmt.Fprintf(w, "claim: %s\n", inv.Claim)
					fmt.Fprintf(w, "link:  %s\n", inv.Link)
					_, err := fmt.Fprintf(w, "join with: hive profile add NAME --hub %s --new-key --invite '%s'\n", inv.Hub, inv.Link)
					return err
				})
			})
		},
	}
	cmd.Flags().IntVar(&uses, "uses", 1, "how many keys the invite admits (1 to 1000)")
	cmd.Flags().StringVar(&expires, "expires", "7d", "how long the invite holds (e.g. 1h, 7d; at most 365d)")
	cmd.Flags().StringVar(&revoke, "revoke", "", "revoke one invite (its claim, link or id) instead: it admits no more keys (hub admins)")
	cmd.MarkFlagsMutuallyExclusive("revoke", "uses")
	cmd.MarkFlagsMutuallyExclusive("revoke", "expires")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// revokeInvite publishes a hub admin's revocation (kind 30451) of one
// invite: what is its claim, its link or its id.
func revokeInvite(cmd *cobra.Command, what string) error {
	rev, err := client.InviteRevocation(what)
	if err != nil {
		return usageErrorf("--revoke: %v", err)
	}
	id := rev.Tags[0][1]
	return withHub(cmd, func(ctx context.Context, s *hubConn) error {
		ev, err := s.Publish(ctx, rev)
		if errors.Is(err, client.ErrAuth) {
			return withHint(err, "only a hub admin revokes invites")
		}
		if err != nil {
			return err
		}
		return outputLine(cmd, map[string]any{"revoked": id, "event": ev.ID},
			"revoked invite %s: it admits no more keys (those it admitted stay members)", id)
	})
}
