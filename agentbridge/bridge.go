package agentbridge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Options are the bridge's run-time dependencies.
type Options struct {
	Dial       Dialer                  // how to reach the hub (DialClient by default)
	Passphrase identity.PassphraseFunc // for encrypted key files
	Log        *slog.Logger
	Stderr     io.Writer // agents' stderr (os.Stderr by default)
	// Guard, when set, is the command prefix that runs each agent under
	// RunGuard (hive bridge: the hive binary's hidden agent-guard command),
	// so a bridge that dies without stopping its agents takes their whole
	// process groups with it.
	Guard []string
	// MCP, when set, is the command that runs `hive mcp` (the hive binary
	// and "mcp"): every session then gets the "hive" MCP server unless the
	// agent's config says hive_tools = false.
	MCP []string
}

// kindsNeeded are the kinds the bridge publishes as the agent.
func kindsNeeded() []int {
	return []int{kinds.Profile, kinds.Message, kinds.Presence, kinds.Typing, kinds.ObserverFrame}
}

// Bridge runs every configured agent.
type Bridge struct {
	cfg     *Config
	opt     Options
	runners []*runner
}

// New checks everything that can be checked before connecting: key files,
// attestations, commands, the state directory. Errors say what to fix.
func New(cfg *Config, opt Options) (*Bridge, error) {
	if opt.Dial == nil {
		opt.Dial = DialClient
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	b := &Bridge{cfg: cfg, opt: opt}
	for i := range cfg.Agents {
		r, err := newRunner(cfg, &cfg.Agents[i], opt)
		if err != nil {
			return nil, fmt.Errorf("agent %q: %w", cfg.Agents[i].Name, err)
		}
		b.runners = append(b.runners, r)
	}
	return b, nil
}

// Run connects every agent and serves until ctx ends, then stops the agents.
// It fails at once if an agent cannot reach the hub or is refused on its
// first connection.
func (b *Bridge) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, r := range b.runners {
		if err := r.link.connectFirst(ctx); err != nil {
			return fmt.Errorf("agent %q: %w", r.cfg.Name, err)
		}
	}
	var wg sync.WaitGroup
	for _, r := range b.runners {
		wg.Add(1)
		go func() { defer wg.Done(); r.run(ctx) }()
	}
	wg.Wait()
	return nil
}

// loadIdentity reads the agent key and its attestation, and checks that the
// attestation verifies for this key, now, for every kind the bridge sends.
func loadIdentity(a *AgentConfig, pass identity.PassphraseFunc) (identity.Keys, nostr.Tag, *identity.Attestation, error) {
	return client.LoadAttestedKey(a.Key, a.Attestation, "the bridge", kindsNeeded(), pass)
}
