package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
	"github.com/spf13/cobra"
)

// hubFlags are the flags of every command that talks to a hub.
type hubFlags struct {
	url     string
	key     string
	tag     string
	asJSON  bool
	timeout time.Duration
}

func (f *hubFlags) register(cmd *cobra.Command, keyHelp string) {
	def := os.Getenv("HIVE_URL")
	if def == "" {
		def = "ws://127.0.0.1:7447"
	}
	cmd.Flags().StringVar(&f.url, "hub", def, "hub URL (env HIVE_URL)")
	cmd.Flags().StringVar(&f.key, "key", os.Getenv("HIVE_KEY"), keyHelp+" (env HIVE_KEY)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print JSON")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Second, "give up after this long")
}

// dial loads the key and connects, mapping failures to exit codes.
func (f *hubFlags) dial(ctx context.Context) (*client.Client, error) {
	if f.key == "" {
		return nil, exitWith(exitUsage, errors.New("--key KEYFILE is required (or set HIVE_KEY)"))
	}
	keys, err := identity.LoadKeyFile(f.key, identity.EnvOrPrompt(os.LookupEnv, identity.TerminalPrompt(os.Stdin, os.Stderr, "passphrase for "+f.key, false)))
	if err != nil {
		return nil, exitWith(exitRefused, err)
	}
	var tag nostr.Tag
	if f.tag != "" {
		if tag, err = identity.ParseTagJSON(f.tag); err != nil {
			return nil, exitWith(exitInvalid, fmt.Errorf("--tag: %w", err))
		}
	}
	c, err := client.Dial(ctx, f.url, keys, tag)
	if errors.Is(err, client.ErrRefused) {
		return nil, exitWith(exitRefused, err)
	}
	if err != nil {
		return nil, exitWith(exitUnavailable, fmt.Errorf("%w (is the hub running? check --hub)", err))
	}
	return c, nil
}

// session connects for the length of one command and runs fn.
func (f *hubFlags) session(cmd *cobra.Command, fn func(context.Context, *client.Client) error) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	defer cancel()
	c, err := f.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(ctx, c)
}

func newAgentRevokeCmd() *cobra.Command {
	var f hubFlags
	var agent, reason string
	cmd := &cobra.Command{
		Use:   "revoke --key OWNER_KEYFILE --agent NPUB|HEX",
		Short: "Revoke every attestation you gave an agent; the hub closes its connections at once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			agentHex, err := identity.ParsePublicKey(agent)
			if err != nil {
				return exitWith(exitUsage, fmt.Errorf("--agent: %w", err))
			}
			return f.session(cmd, func(ctx context.Context, c *client.Client) error {
				ev, err := identity.NewRevocation(c.Keys, agentHex, reason, time.Now().Unix())
				if err != nil {
					return exitWith(exitInvalid, err)
				}
				if err := c.Publish(ctx, ev); err != nil {
					return exitWith(exitRefused, err)
				}
				return printResult(cmd, f.asJSON, map[string]any{"revoked": agentHex, "at": ev.CreatedAt, "event": ev.ID},
					fmt.Sprintf("revoked %s at %d; re-attest at least one second from now to restore it", agentHex, ev.CreatedAt))
			})
		},
	}
	f.register(cmd, "owner key file")
	cmd.Flags().StringVar(&agent, "agent", "", "agent public key (npub or hex)")
	cmd.Flags().StringVar(&reason, "reason", "", "free-text reason stored with the revocation")
	return cmd
}

func newAgentProfileCmd() *cobra.Command {
	var f hubFlags
	var name, about string
	cmd := &cobra.Command{
		Use:   "profile --key AGENT_KEYFILE --tag TAG_JSON --name NAME",
		Short: "Publish the agent's kind 0 profile with its owner's auth tag and a bot marker",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.tag == "" {
				return exitWith(exitUsage, errors.New("--tag is required: the owner's attestation from `hive agent attest`"))
			}
			return f.session(cmd, func(ctx context.Context, c *client.Client) error {
				tag, _ := identity.ParseTagJSON(f.tag)
				content, _ := json.Marshal(map[string]any{"name": name, "about": about, "bot": true})
				ev := &nostr.Event{Kind: kinds.Profile, CreatedAt: nostr.Now(), Content: string(content), Tags: nostr.Tags{tag, {"bot"}}}
				if err := c.Publish(ctx, ev); err != nil {
					return exitWith(exitRefused, err)
				}
				return printResult(cmd, f.asJSON, map[string]any{"event": ev.ID, "agent": c.Keys.PublicHex}, "published profile "+ev.ID)
			})
		},
	}
	f.register(cmd, "agent key file")
	cmd.Flags().StringVar(&f.tag, "tag", os.Getenv("HIVE_AUTH_TAG"), "the owner's auth tag as a JSON array (env HIVE_AUTH_TAG)")
	cmd.Flags().StringVar(&name, "name", "", "display name")
	cmd.Flags().StringVar(&about, "about", "", "description")
	return cmd
}

type agentRow struct {
	Agent      string `json:"agent"`
	Npub       string `json:"npub"`
	Name       string `json:"name,omitempty"`
	Conditions string `json:"conditions"`
	ExpiresAt  *int64 `json:"expires_at"`
	Expired    bool   `json:"expired"`
	RevokedAt  *int64 `json:"revoked_at"`
	Revoked    bool   `json:"revoked"`
}

func newAgentListCmd() *cobra.Command {
	var f hubFlags
	cmd := &cobra.Command{
		Use:   "list --key OWNER_KEYFILE",
		Short: "List your agents known to the hub (from their profiles), with expiry and revocation state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.session(cmd, func(ctx context.Context, c *client.Client) error {
				me := c.Keys.PublicHex
				profiles, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Limit: 5000})
				if err != nil {
					return exitWith(exitUnavailable, err)
				}
				revs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.AgentRevocation}, Authors: []string{me}, Limit: 5000})
				if err != nil {
					return exitWith(exitUnavailable, err)
				}
				revokedAt := map[string]int64{}
				for _, ev := range revs {
					if _, agent, at, err := identity.ParseRevocation(ev); err == nil {
						revokedAt[agent] = at
					}
				}
				now := time.Now().Unix()
				var rows []agentRow
				for _, ev := range profiles {
					tag, err := identity.FindAuthTag(ev)
					if err != nil {
						continue
					}
					a, err := identity.VerifyAuthTag(tag, ev.PubKey)
					if err != nil || a.Owner != me {
						continue
					}
					npub, _ := nip19.EncodePublicKey(ev.PubKey)
					row := agentRow{Agent: ev.PubKey, Npub: npub, Conditions: a.RawConditions}
					var meta struct{ Name string }
					json.Unmarshal([]byte(ev.Content), &meta)
					row.Name = meta.Name
					if exp, ok := a.Conditions.Expiry(); ok {
						row.ExpiresAt, row.Expired = &exp, now >= exp
					}
					if at, ok := revokedAt[ev.PubKey]; ok {
						row.RevokedAt, row.Revoked = &at, identity.RevokedBy(a.Conditions, at)
					}
					rows = append(rows, row)
				}
				sort.Slice(rows, func(i, j int) bool { return rows[i].Name+rows[i].Agent < rows[j].Name+rows[j].Agent })
				if f.asJSON {
					return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"agents": rows})
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
				fmt.Fprintln(w, "NAME\tAGENT\tEXPIRES\tSTATE")
				for _, r := range rows {
					exp, state := "never", "active"
					if r.ExpiresAt != nil {
						exp = time.Unix(*r.ExpiresAt, 0).UTC().Format(time.RFC3339)
					}
					switch {
					case r.Revoked:
						state = "revoked"
					case r.Expired:
						state = "expired"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.Name, r.Npub, exp, state)
				}
				return w.Flush()
			})
		},
	}
	f.register(cmd, "owner key file")
	return cmd
}

func printResult(cmd *cobra.Command, asJSON bool, v any, text string) error {
	if asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(v)
	}
	_, err := fmt.Fprintln(cmd.OutOrStdout(), text)
	return err
}
