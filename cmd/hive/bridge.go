package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/ainb/hive/agentbridge"
	"github.com/spf13/cobra"
)

func newBridgeCmd() *cobra.Command {
	var config string
	var verbose bool
	cmd := &cobra.Command{
		Use:   "bridge --config FILE",
		Short: "Run ACP agents that answer mentions on the hub as their own keys (spec/agents.md)",
		Long: `Connect each [[agent]] of the TOML config to the hub with its own key and its
owner's attestation, keep a pool of ACP agent processes (claude-agent-acp,
codex-acp, gemini --acp, goose acp, ...), answer mentions with one threaded
reply per turn, stream every raw ACP message to the owner as encrypted
observer frames (watch them with: hive agent watch), and ask the owner before
tool calls when permissions = "ask". The config format is in spec/agents.md.`,
		Example: `  hive bridge --config bridge.toml`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := serviceConfig(config, "spec/agents.md", agentbridge.LoadConfig)
			if err != nil {
				return err
			}
			log := serviceLog(cmd, verbose)
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("locating the hive binary for the agent guard: %w", err)
			}
			b, err := agentbridge.New(cfg, agentbridge.Options{Passphrase: passphraseSource(cmd, false), Log: log,
				Guard: []string{self, guardCmd}, MCP: []string{self, "mcp"}})
			if err != nil {
				return err // classified: a missing file, a refused key, else usage
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return b.Run(ctx) // classified: hub unreachable, AUTH refused
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "the bridge's TOML config file (required)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log every routing decision")
	return cmd
}

// guardCmd is the hidden command the bridge runs each agent under.
const guardCmd = "agent-guard"

// newAgentGuardCmd is `hive agent-guard COMMAND...`: the bridge's process
// group guard for one agent (agentbridge.RunGuard). Not for people.
func newAgentGuardCmd() *cobra.Command {
	return &cobra.Command{
		Use:                guardCmd + " COMMAND [ARG...]",
		Short:              "Run one ACP agent for hive bridge; kill its process group if the bridge dies",
		Hidden:             true,
		DisableFlagParsing: true,
		Run: func(_ *cobra.Command, args []string) {
			os.Exit(agentbridge.RunGuard(args))
		},
	}
}

// serviceConfig loads a service's --config file with load; a missing flag
// or a bad file exits 2 (the format is in spec).
func serviceConfig[C any](config, spec string, load func(string) (C, error)) (C, error) {
	var none C
	if config == "" {
		return none, usageErrorf("--config FILE is required (the format is in %s)", spec)
	}
	c, err := load(config)
	if err != nil {
		return none, exitWith(exitUsage, err)
	}
	return c, nil
}

// serviceLog is the stderr log of a long-running command (hive bridge,
// hive workflow serve): info, or debug with -v.
func serviceLog(cmd *cobra.Command, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
}
