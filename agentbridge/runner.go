package agentbridge

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// runner is one configured agent: it wires the parts that each have one
// owner, and holds nothing that changes after run starts:
//
//   - the hub link (hubLink, one lock) and the mention loop of each
//     connection (serve: the live feed, the roster, control frames; it
//     alone asks decide whether the agent answers a message, and owns
//     priorReplies and the answer gate's lookups);
//   - the dispatcher (its goroutine: the queue, the process slots, the
//     batches in flight), which starts each turn on a goroutine of its own;
//   - the turn table (one lock: the turns running, the permission
//     requests waiting, the agent's untracked turns), which turns, the
//     processes' line hooks and control frames share;
//   - the receipts' outbox, the status board, the observer, the context
//     cache and the state, each with its own goroutine or lock.
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
	cfg      *AgentConfig
	opt      Options
	log      *slog.Logger
	keys     identity.Keys
	tag      nostr.Tag
	owner    string
	ownerKey [32]byte // the NIP-44 conversation key between the agent and its owner
	start    time.Time
	// runCtx is run's context, for work the agent's own lines start (an
	// untracked turn's reply); set once, before any goroutine of run.
	runCtx context.Context
	// asked is when the last run asked each mention of a turn it left in
	// flight without a reply (settleLastRun): the catch-up asks them again
	// in that order, before any mention that run never took. The mention
	// loop's own.
	asked map[string]time.Time

	state    *State
	link     *hubLink      // the connection to the hub
	disp     *dispatcher   // the queue and the process slots, on its own goroutine
	turns    *turnTable    // the turns running, the permissions waiting, the agent's own turns
	gate     *answerGate   // who may ask the agent
	prior    *priorReplies // an earlier run's replies it did not record (the mention loop's own)
	obs      *observer
	out      *outbox      // receipts, published in order
	status   *statusBoard // what the agent status says
	cache    *ctxCache    // the chat model prompt contexts are built from
	contexts *contextBuilder
	tools    *hiveTools // the "hive" MCP server of its sessions
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
	ownerKey, err := nip44.GenerateConversationKey(att.Owner, keys.SecretHex)
	if err != nil {
		return nil, err
	}
	target, err := resolveTarget(cfg.Hub, cfg.Pin, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	target.Log = log.With("hub", strings.Join(target.URLs, ","))
	r := &runner{cfg: a, opt: opt, log: log, keys: keys, tag: tag, owner: att.Owner,
		ownerKey: ownerKey, state: state, start: time.Now(),
		turns: newTurnTable()}
	target.OnReconnect = func() { r.status.connected(time.Now(), true) } // watchers renew their leases
	r.link = newHubLink(target, keys, tag, opt.Dial, log)
	r.gate = newAnswerGate(a.answer, a.Answer, att.Owner, log)
	r.prior = &priorReplies{agent: keys.PublicHex, start: r.start, log: log}
	r.tools = &hiveTools{enabled: a.hiveTools() && len(opt.MCP) > 0, command: opt.MCP, dir: state.Dir(), target: target, cfg: a, keys: keys, log: log}
	if r.tools.enabled {
		if err := r.tools.writeMCPKey(); err != nil {
			return nil, err
		}
	}
	r.obs = newObserver(ownerKey, att.Owner, r.link.publishOnce)
	r.status, r.cache = newStatusBoard(a.Processes), newCtxCache(keys.PublicHex)
	r.out = newOutbox(log, r.status)
	r.contexts = &contextBuilder{cfg: a, me: keys.PublicHex, cache: r.cache, state: state, log: log}
	r.restoreLeases()
	r.disp = newDispatcher(a.Processes, log, state, r.out, r.status, a.Env)
	r.disp.start, r.disp.spawn, r.disp.postFailure = r.startTurn, r.startProcess, r.postFailure
	return r, nil
}

// startTurn is dispatcher.start: the turn runs on its own goroutine.
func (r *runner) startTurn(ctx context.Context, s *slot, p *agentProc, ch string, batch []Mention) {
	go func() {
		out := r.runTurn(ctx, s, p, ch, batch)
		r.disp.send(turnEnded{s, p, ch, batch, out})
	}()
}

// startProcess is dispatcher.spawn: an agent process, under the guard,
// whose own messages come to the runner.
func (r *runner) startProcess(ctx context.Context) (*agentProc, error) {
	return startAgent(ctx, append(append([]string(nil), r.opt.Guard...), r.cfg.Command...), r.cfg.Cwd, r.cfg.Env, r.cfg.AuthMethod, r.opt.Stderr, r)
}
