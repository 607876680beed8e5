package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/spf13/cobra"
)

func newAgentRevokeCmd() *cobra.Command {
	return revokeCmd("agent", "Revoke every attestation you gave an agent; the hub closes its connections at once",
		"agent public key (npub or hex)")
}

// revokeCmd is `revoke --KIND NPUB|HEX` (KIND agent or device): the owner's
// revocation of that attested key, with an optional --reason.
func revokeCmd(kind, short, keyUsage string) *cobra.Command {
	var key, reason string
	cmd := &cobra.Command{
		Use:   "revoke --" + kind + " NPUB|HEX",
		Short: short,
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return revokeAttested(cmd, "--"+kind, key, reason) },
	}
	addTimeoutFlag(cmd, 10*time.Second)
	cmd.Flags().StringVar(&key, kind, "", keyUsage)
	cmd.Flags().StringVar(&reason, "reason", "", "free-text reason stored with the revocation")
	return cmd
}

// revokeAttested publishes the owner's revocation of the agent or device
// key given in flag (npub or hex); the hub closes its connections at once.
func revokeAttested(cmd *cobra.Command, flag, key, reason string) error {
	hex, err := identity.ParsePublicKey(key)
	if err != nil {
		return usageErrorf("%s: %v", flag, err)
	}
	return withHub(cmd, func(ctx context.Context, s *hubConn) error {
		rev, err := identity.NewRevocation(s.keys, hex, reason, time.Now().Unix())
		if err != nil {
			return exitWith(exitUsage, err)
		}
		if _, err := s.Publish(ctx, *rev); err != nil {
			return err
		}
		return outputLine(cmd, map[string]any{"revoked": hex, "at": rev.CreatedAt, "event": rev.ID},
			"revoked %s at %d; re-attest at least one second from now to restore it", hex, rev.CreatedAt)
	})
}

func newAgentProfileCmd() *cobra.Command {
	var name, about string
	cmd := hubCmd(&cobra.Command{
		Use:   "profile --key AGENT_KEYFILE --auth-tag TAG_JSON --name NAME",
		Short: "Publish the agent's kind 0 profile with its owner's auth tag and a bot marker",
		Args:  noArgs,
	}, func(ctx context.Context, s *hubConn, cmd *cobra.Command, _ []string) error {
		if s.t.authTag == nil {
			return usageErrorf("--auth-tag is required: the owner's attestation from `hive agent attest`")
		}
		ev, err := s.Publish(ctx, client.AgentProfile(name, about, s.t.authTag))
		if err != nil {
			return err
		}
		return outputLine(cmd, map[string]any{"event": ev.ID, "agent": s.PublicKey()}, "published profile %s", ev.ID)
	})
	cmd.Flags().StringVar(&name, "name", "", "display name")
	cmd.Flags().StringVar(&about, "about", "", "description")
	return cmd
}

func newAgentListCmd() *cobra.Command {
	cmd := hubCmd(&cobra.Command{
		Use:   "list",
		Short: "List your agents known to the hub (from their profiles), with expiry and revocation state",
		Args:  noArgs,
	}, func(ctx context.Context, s *hubConn, cmd *cobra.Command, _ []string) error {
		rows, err := s.Agents(ctx, time.Now())
		if err != nil {
			return err
		}
		if err := addRunStates(ctx, s, rows); err != nil {
			return err
		}
		return printAttested(cmd, "agents", rows)
	})
	return cmd
}

// addRunStates fills each agent's Run from its bridge's status and the
// receipts in the owner's channels.
func addRunStates(ctx context.Context, s *hubConn, rows []client.AgentStatus) error {
	if len(rows) == 0 {
		return nil
	}
	chans, err := s.memberChannels(ctx) // an owner in no channel still lists its agents
	if err != nil {
		return err
	}
	ids := make([]string, len(chans))
	for i, c := range chans {
		ids[i] = c.ID
	}
	agents := make([]string, len(rows))
	for i, r := range rows {
		agents[i] = r.Agent
	}
	states, err := s.AgentStates(ctx, agents, ids)
	if err != nil {
		return err
	}
	for i := range rows {
		if st, ok := states[rows[i].Agent]; ok {
			rows[i].Run = &st
		}
	}
	return nil
}

// printAttested prints agents or devices as a table, or {"<what>": rows}.
func printAttested(cmd *cobra.Command, what string, rows []client.AgentStatus) error {
	return output(cmd, map[string]any{what: rows}, func(out io.Writer) error {
		w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
		run := what == "agents"
		fmt.Fprintf(w, "NAME\t%s\tEXPIRES\tSTATE", strings.ToUpper(strings.TrimSuffix(what, "s")))
		if run {
			fmt.Fprint(w, "\tRUN")
		}
		fmt.Fprintln(w)
		for _, r := range rows {
			exp := "never"
			if r.ExpiresAt != nil {
				exp = fmtTime(*r.ExpiresAt)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s", line(r.Name), r.Npub, exp, r.State())
			if run {
				state := "- (no bridge status)"
				if r.Run != nil {
					state = r.Run.Summary()
				}
				fmt.Fprintf(w, "\t%s", line(state))
			}
			fmt.Fprintln(w)
		}
		return w.Flush()
	})
}

// keyFileOf is the key file from --key, HIVE_KEY or the profile, for
// commands that need a key but no hub.
func keyFileOf(cmd *cobra.Command) string {
	if k := flagOrEnv(cmd, "key", "HIVE_KEY"); k != "" {
		return k
	}
	t, _ := resolveTarget(cmd)
	return t.keyFile
}
