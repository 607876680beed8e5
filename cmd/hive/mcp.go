package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ainb/hive/agentmcp"
	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func newMCPCmd() *cobra.Command {
	var hub, pin, keyFile, tagFile, channel, turnFile string
	var write bool
	var writeChannels []string
	cmd := &cobra.Command{
		Use:   "mcp --hub URL --key FILE --tag FILE --channel ID",
		Short: "Serve the hive tools to an agent over MCP on stdio (hive bridge starts it; spec/agents.md)",
		Long: `Serve the MCP tools read_thread, read_channel, list_channels, list_members,
get_event and search (and, with --write, post_message and react) on stdin and
stdout, as the agent key in --key (a plain key file, mode 0600), bound to the
session's channel and to the turn the bridge describes in --turn. The write
tools post only in the turn's channel and the --write-channel ones, at most 10
times a turn (counted beside the turn file, across processes). hive bridge
passes this command to every session it opens as the MCP server "hive".`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if hub == "" || keyFile == "" || tagFile == "" || channel == "" {
				return usageErrorf("--hub, --key, --tag and --channel are required (hive bridge passes them)")
			}
			keys, err := identity.LoadKeyFile(keyFile, nil)
			if err != nil {
				return exitWith(exitUsage, err)
			}
			raw, err := os.ReadFile(tagFile)
			if err != nil {
				return exitWith(exitUsage, fmt.Errorf("--tag: %w", err))
			}
			tag, err := identity.ParseAttestationText(string(raw))
			if err != nil {
				return exitWith(exitUsage, fmt.Errorf("--tag %s: %w", tagFile, err))
			}
			ctx := cmd.Context()
			c, err := client.Connect(ctx, client.Options{URLs: []string{hub}, Keys: keys, AuthTag: tag, Pin: pin, ProfileCache: mcpProfileCache})
			if err != nil {
				return err
			}
			defer c.Close()
			s := agentmcp.New(agentmcp.Config{Client: c, Channel: channel, TurnFile: turnFile, Write: write, WriteChannels: writeChannels})
			if err := s.Serve(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil && err != context.Canceled {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&hub, "hub", "", "the hub's URL")
	cmd.Flags().StringVar(&pin, "pin", "", "the hub's TLS pin")
	cmd.Flags().StringVar(&keyFile, "key", "", "the agent's plain key file (mode 0600)")
	cmd.Flags().StringVar(&tagFile, "tag", "", "the owner's attestation tag file")
	cmd.Flags().StringVar(&channel, "channel", "", "the session's channel id")
	cmd.Flags().StringVar(&turnFile, "turn", "", "the bridge's file naming the turn in flight")
	cmd.Flags().BoolVar(&write, "write", false, "offer post_message and react")
	cmd.Flags().StringArrayVar(&writeChannels, "write-channel", nil, "a channel id the write tools may post in besides the turn's (repeat; * for any)")
	return cmd
}

// mcpProfileCache is how long hive mcp reuses a profile it fetched: names in
// tool results may lag a rename by that much, and a tool call saves a hub
// round trip or two.
const mcpProfileCache = 30 * time.Second
