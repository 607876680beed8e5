package agentbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
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
		if err := r.connectFirst(ctx); err != nil {
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

// runner is one configured agent: its hub connection, pool and queue.
//
// A turn's output takes two paths, which never mix:
//
//   - The reply: the agent_message_chunk text of the turn's own session,
//     received while its prompt is in flight, is gathered in turn.text
//     (sessionUpdate); when the prompt returns, runTurn posts it once as the
//     reply, an ordinary kind 9 in the channel (postReply, then the
//     receipts). A turn the agent runs on its own (a steer) gathers its
//     text in untracked.go instead. Nothing partial reaches the channel.
//   - Observer frames: every raw JSON-RPC line, both directions, in wire
//     order (routeLine), goes NIP-44-sealed to the owner and the owner's
//     watching devices alone (observer.go), named by the turn's id, or
//     load:<session> for a session/load's replay. They are never posted to
//     the channel and never make the reply.
type runner struct {
	cfg    *AgentConfig
	to     Target
	opt    Options
	log    *slog.Logger
	keys   identity.Keys
	tag    nostr.Tag
	owner  string
	ck     [32]byte
	state  *State
	obs    *observer
	out    *outbox      // receipts, published in order
	status *statusBoard // what the agent status says
	cache  *ctxCache    // the chat model prompt contexts are built from
	start  time.Time
	events chan event // for the dispatcher goroutine (events.go)
	closed chan struct{}

	hubMu sync.Mutex
	hub   Hub
	hubUp chan struct{} // closed while connected; replaced on disconnect

	d dispatch // owned by the dispatcher goroutine

	mu      sync.Mutex
	current map[*agentProc]*turn         // the turn each process is running
	perms   map[string]*pendingPerm      // session + "\x00" + JSON-RPC id
	members map[string]gateEntry[bool]   // "members" gate cache
	devices map[string]gateEntry[string] // paired devices seen as mention authors: their owners
	loose   map[string]*untracked        // session -> the agent's turn of its own

	ctx context.Context // run's, for work started by the agent's own lines

	hiveMCP bool // sessions get the "hive" MCP server (mcp.go)

	// The agent's newest message from before this run started, once
	// looked up (mayHaveReplied; the mention loop's own).
	ownKnown bool
	ownLast  nostr.Timestamp
}

func newRunner(cfg *Config, a *AgentConfig, opt Options) (*runner, error) {
	keys, tag, att, err := loadIdentity(a, opt.Passphrase)
	if err != nil {
		return nil, err
	}
	if err := LookCommand(a.Command, a.Env); err != nil {
		return nil, err
	}
	if st, err := os.Stat(a.Cwd); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("cwd %s is not a directory", a.Cwd)
	}
	log := opt.Log.With("agent", a.Name)
	state, err := OpenState(cfg.Resolve(cfg.StateDir), a.Name, func(err error) { log.Error("saving state", "err", err) })
	if err != nil {
		return nil, err
	}
	ck, err := nip44.GenerateConversationKey(att.Owner, keys.SecretHex)
	if err != nil {
		return nil, err
	}
	to, err := resolveTarget(cfg.Hub, cfg.Pin, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	to.Log = log.With("hub", strings.Join(to.URLs, ","))
	r := &runner{cfg: a, to: to, opt: opt, log: log, keys: keys, tag: tag, owner: att.Owner,
		ck: ck, state: state, start: time.Now(), events: make(chan event, 1024), closed: make(chan struct{}),
		hubUp: make(chan struct{}), current: map[*agentProc]*turn{}, perms: map[string]*pendingPerm{}, members: map[string]gateEntry[bool]{}, devices: map[string]gateEntry[string]{}, loose: map[string]*untracked{}}
	if r.hiveMCP = a.hiveTools() && len(opt.MCP) > 0; r.hiveMCP {
		if err := r.writeMCPKey(); err != nil {
			return nil, err
		}
	}
	r.obs = newObserver(ck, att.Owner, r.publishOnce)
	r.out, r.status, r.cache = newOutbox(), newStatusBoard(a.Processes), newCtxCache(keys.PublicHex)
	r.restoreLeases()
	r.to.OnReconnect = func() { r.status.connected(time.Now(), true) } // watchers renew their leases
	r.d = newDispatch(a.Processes)
	r.d.start = r.startTurn
	return r, nil
}

// currentHub is the live connection, or nil while reconnecting.
func (r *runner) currentHub() Hub {
	r.hubMu.Lock()
	defer r.hubMu.Unlock()
	return r.hub
}

// publishOnce sends ev on the current connection (signing it as the agent).
func (r *runner) publishOnce(ctx context.Context, ev *nostr.Event) error {
	h := r.currentHub()
	if h == nil {
		return errors.New("not connected to the hub")
	}
	return h.Publish(ctx, ev)
}

// publish sends ev, waiting for the connection to come back, until ctx ends
// or the hub refuses it for a reason that retrying will not change.
func (r *runner) publish(ctx context.Context, ev *nostr.Event) error {
	for {
		r.hubMu.Lock()
		h, up := r.hub, r.hubUp
		r.hubMu.Unlock()
		if h != nil {
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := h.Publish(pctx, ev)
			cancel()
			if err == nil || refusedForGood(err) {
				return err
			}
			r.log.Warn("publish failed, retrying", "kind", ev.Kind, "err", err)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-up:
		}
	}
}
