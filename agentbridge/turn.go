package agentbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	obs "github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/kinds"
	acp "github.com/coder/acp-go-sdk"
	"github.com/nbd-wtf/go-nostr"
)

// Turn timings that are not configurable.
const (
	callTimeout   = 2 * time.Minute  // session/new, session/load, set_mode, set_model
	cancelGrace   = 10 * time.Second // after session/cancel, for the prompt to return
	typingEvery   = 3 * time.Second
	typingFirst   = 300 * time.Millisecond // turns shorter than this show no typing
	crashSettle   = 2 * time.Second        // after a failed call, to tell a crash from an error
	replyDeadline = 10 * time.Minute
)

// turn is one prompt in flight on one process.
type turn struct {
	id      string // the newest mention's event id (or "steer-<time>")
	channel string
	batch   []Mention

	mu        sync.Mutex
	session   string
	loading   bool // session/load is in flight: its lines are the session's history
	prompting bool // the prompt is in flight: its agent message text is the reply's
	finished  bool // the prompt returned: later lines of the session are not this turn's
	text      strings.Builder
	stopNote  string // why the turn was stopped early, for the reply
	preface   string // a new session's first block: the persona's instructions
}

// ref names the turn in observer frames; the lines of a session/load (its
// request, the history the agent replays, its response) go under
// obs.LoadTurn(session) instead, so a watcher keeps them apart from the turn.
func (t *turn) ref() turnRef {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.loading {
		return turnRef{channel: t.channel, session: t.session, turn: obs.LoadTurn(t.session)}
	}
	return turnRef{channel: t.channel, session: t.session, turn: t.id}
}

func (t *turn) Session() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.session
}

// sessionUpdate is called by the SDK, in order, for every notification. Only
// this turn's own agent message text, sent while its prompt is in flight,
// makes the reply (a session/load replay is never part of it). Text in a
// session with no prompt in flight belongs to an untracked turn (a steer the
// agent runs on its own).
func (r *runner) sessionUpdate(p *agentProc, n acp.SessionNotification) {
	if n.Update.AgentMessageChunk == nil || n.Update.AgentMessageChunk.Content.Text == nil {
		return
	}
	session, text := string(n.SessionId), n.Update.AgentMessageChunk.Content.Text.Text
	if t := r.turns.tracked(p, session); t != nil {
		t.mu.Lock()
		prompting := t.prompting
		if prompting {
			t.text.WriteString(text)
		}
		t.mu.Unlock()
		if !prompting { // setup: a replay, or the tail of an untracked turn
			if u := r.untrackedFor(session, false); u != nil {
				u.add(text)
			}
		}
		return
	}
	r.untrackedText(session, text)
}

// runTurn answers one batch on process p of slot s.
func (r *runner) runTurn(ctx context.Context, s *slot, p *agentProc, ch string, batch []Mention) turnOutcome {
	t := &turn{channel: ch, batch: batch, id: batch[len(batch)-1].ID}
	if t.id == "" {
		t.id = fmt.Sprintf("steer-%d", time.Now().UnixNano())
	}
	r.turns.begin(p, t)
	defer r.turns.end(p)
	began := r.beginTurn(t)
	defer r.out.then(func() { r.state.EndTurn(t.id, began) }) // once its final receipts are out
	typingCtx, stopTyping := context.WithCancel(ctx)
	defer stopTyping()
	go r.typing(typingCtx, t)
	r.out.receipt(batch, kinds.ReceiptWorking, "", "")

	notice, err := r.ensureSession(ctx, s, p, t)
	if err != nil {
		if r.crashed(p) {
			return turnCrashed
		}
		r.postFailure(ctx, batch, failureText("the agent could not open a session", err, p.stderr, r.cfg.Env))
		return turnAnswered
	}
	noticed := make(chan struct{}) // the notice is posted while the prompt goes out, and before the reply
	if notice == "" {
		close(noticed)
	} else {
		go func() {
			defer close(noticed)
			r.link.publish(ctx, &nostr.Event{Kind: kinds.Message, CreatedAt: nostr.Now(), Content: notice, Tags: nostr.Tags{{"h", ch}}})
		}()
	}
	res, err := r.prompt(ctx, p, t)
	<-noticed
	t.mu.Lock()
	t.finished = true
	text, note := strings.TrimSpace(t.text.String()), t.stopNote
	t.mu.Unlock()
	switch {
	case errors.Is(err, errWedged):
		r.postFailure(ctx, batch, t.stopNote)
		return turnWedged
	case err != nil && ctx.Err() != nil:
		return turnCrashed // shutting down: answered after the restart
	case err != nil && r.crashed(p):
		return turnCrashed
	case err != nil:
		r.postFailure(ctx, batch, failureText("the agent failed", err, p.stderr, r.cfg.Env))
		return turnAnswered
	}
	if res.StopReason != acp.StopReasonEndTurn {
		if note == "" {
			note = "the turn ended early: " + string(res.StopReason)
		}
		text = strings.TrimSpace(text + "\n\n(" + note + ")")
	}
	if text == "" {
		text = "(the agent finished without an answer)"
	}
	r.postReply(ctx, batch, text)
	if res.StopReason == acp.StopReasonCancelled || note != "" {
		r.reopenAfterCancel(ctx, s, p, t)
	}
	return turnAnswered
}

// reopenAfterCancel closes a session whose turn was cancelled, so the
// channel's next turn loads it again (session/load) instead of prompting
// the same live session: claude-agent-acp 0.23.1 answers the prompt after a
// cancel with the cancelled query's leftover end of turn, at once and
// without text, and from then on every prompt returns one answer behind.
// A session loaded afresh keeps its history and starts in step. Agents that
// cannot both close and load sessions keep the session as it is.
func (r *runner) reopenAfterCancel(ctx context.Context, s *slot, p *agentProc, t *turn) {
	if !p.info.CloseSession || !p.info.LoadSession {
		return
	}
	session := t.Session()
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := p.conn.CloseSession(cctx, acp.CloseSessionRequest{SessionId: acp.SessionId(session)}); err != nil {
		r.log.Warn("could not close the session after a cancelled turn; prompting it again as it is", "channel", t.channel, "session", session, "err", errText(err))
		return
	}
	delete(s.loaded, t.channel)
	r.log.Info("session closed after a cancelled turn; the next turn loads it again", "channel", t.channel, "session", session)
}

// crashed reports whether p exited (waiting briefly: a broken pipe is seen
// before the exit status).
func (r *runner) crashed(p *agentProc) bool {
	return p.waitExit(crashSettle)
}

func errText(err error) string {
	var re *acp.RequestError
	if errors.As(err, &re) {
		if re.Data != nil {
			data, _ := json.Marshal(re.Data)
			return fmt.Sprintf("%s (%s)", re.Message, data)
		}
		return re.Message
	}
	return err.Error()
}

// ensureSession gives the turn the channel's session on p: already loaded,
// resumed with session/load, or new. Mode and model are pinned after every
// new or load. It returns a notice for the channel when a resume failed.
func (r *runner) ensureSession(ctx context.Context, s *slot, p *agentProc, t *turn) (string, error) {
	if id, ok := s.loaded[t.channel]; ok {
		t.mu.Lock()
		t.session = id
		t.mu.Unlock()
		return "", nil
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	notice := ""
	if ref, ok := r.state.Session(t.channel); ok {
		if !p.info.LoadSession {
			notice = "(this agent cannot resume sessions: starting a fresh one, without the earlier context)"
		} else {
			t.mu.Lock()
			t.session, t.loading = ref.Session, true
			t.mu.Unlock()
			res, err := p.conn.LoadSession(cctx, acp.LoadSessionRequest{SessionId: acp.SessionId(ref.Session), Cwd: ref.Cwd, McpServers: r.tools.mcpServers(t.channel), Meta: r.cfg.sessionMeta(p.info)})
			t.mu.Lock() // the response line was routed before LoadSession returned
			t.loading = false
			t.mu.Unlock()
			if err == nil {
				if err := r.pin(cctx, p, ref.Session, res.ConfigOptions); err != nil {
					return "", err
				}
				s.loaded[t.channel] = ref.Session
				r.log.Info("session resumed", "channel", t.channel, "session", ref.Session)
				return "", nil
			}
			if r.crashed(p) {
				return "", err
			}
			notice = "(could not resume the previous session: " + errText(err) + "; starting a fresh one)"
			r.log.Warn("session/load failed", "channel", t.channel, "session", ref.Session, "err", err)
		}
	}
	res, err := p.conn.NewSession(cctx, acp.NewSessionRequest{Cwd: r.cfg.Cwd, McpServers: r.tools.mcpServers(t.channel), Meta: r.cfg.sessionMeta(p.info)})
	if err != nil {
		return "", err
	}
	id := string(res.SessionId)
	t.mu.Lock()
	t.session, t.preface = id, r.cfg.instructionsBlock(p.info)
	t.mu.Unlock()
	if err := r.pin(cctx, p, id, res.ConfigOptions); err != nil {
		return "", err
	}
	s.loaded[t.channel] = id
	r.state.SetSession(t.channel, SessionRef{Session: id, Cwd: r.cfg.Cwd})
	return notice, nil
}

// pin applies the configured mode and model to a session; opts are the
// config options session/new or session/load listed.
func (r *runner) pin(ctx context.Context, p *agentProc, session string, opts []acp.SessionConfigOption) error {
	if r.cfg.Mode != "" {
		if _, err := p.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: acp.SessionId(session), ModeId: acp.SessionModeId(r.cfg.Mode)}); err != nil {
			return fmt.Errorf("setting mode %q: %s", r.cfg.Mode, errText(err))
		}
	}
	if r.cfg.Model != "" {
		if err := setModel(ctx, p, session, r.cfg.Model, opts); err != nil {
			return fmt.Errorf("setting model %q: %s", r.cfg.Model, errText(err))
		}
	}
	return nil
}

var errWedged = errors.New("agent wedged")

// prompt sends the batch and waits for the stop reason, enforcing the idle
// timeout (silence from the agent, not counting time spent waiting for the
// owner's permission) and the hard turn timeout. On a timeout it cancels
// the session; if the agent does not stop within cancelGrace it is wedged.
func (r *runner) prompt(ctx context.Context, p *agentProc, t *turn) (acp.PromptResponse, error) {
	session := t.Session()
	pc := r.contexts.buildContext(ctx, r.link.current(), session, t.batch)
	var blocks []acp.ContentBlock
	if t.preface != "" {
		blocks = append(blocks, acp.TextBlock(t.preface))
	}
	for _, s := range promptText(pc.text, t.batch, pc.names) {
		blocks = append(blocks, acp.TextBlock(s))
	}
	if pc.scope != "" {
		r.state.SetSeen(session, pc.scope, pc.upTo)
	}
	r.tools.writeTurn(t)
	type result struct {
		res acp.PromptResponse
		err error
	}
	done := make(chan result, 1)
	t.mu.Lock()
	t.prompting = true
	t.mu.Unlock()
	r.flushUntracked(session) // an untracked turn in this session ends before the prompt
	go func() {
		res, err := p.conn.Prompt(context.WithoutCancel(ctx), acp.PromptRequest{SessionId: acp.SessionId(session), Prompt: blocks})
		done <- result{res, err}
	}()
	hard := time.NewTimer(r.cfg.turnTimeout)
	defer hard.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	stop := func(note string) (acp.PromptResponse, error) {
		t.mu.Lock()
		t.stopNote = note
		t.mu.Unlock()
		r.cancelSession(p, session)
		select {
		case res := <-done:
			return res.res, res.err
		case <-time.After(cancelGrace):
			return acp.PromptResponse{}, errWedged
		}
	}
	for {
		select {
		case res := <-done:
			return res.res, res.err
		case <-ctx.Done():
			r.cancelSession(p, session)
			return acp.PromptResponse{}, ctx.Err()
		case <-hard.C:
			return stop(fmt.Sprintf("stopped: the turn took longer than turn_timeout (%v)", r.cfg.turnTimeout))
		case <-tick.C:
			idle := time.Since(time.Unix(0, p.last.Load()))
			if idle > r.cfg.idleTTL && !r.turns.waitingForOwner(session) {
				return stop(fmt.Sprintf("stopped: the agent was silent for longer than idle_timeout (%v)", r.cfg.idleTTL))
			}
		}
	}
}

// cancelSession sends session/cancel and answers the session's pending
// permission requests with "cancelled".
func (r *runner) cancelSession(p *agentProc, session string) {
	r.turns.cancelPermissions(session)
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.conn.Cancel(cctx, acp.CancelNotification{SessionId: acp.SessionId(session)})
}

// typing publishes typing indicators in the turn's channel until ctx ends,
// starting once the prompt is well under way (it is not on the prompt's path).
func (r *runner) typing(ctx context.Context, t *turn) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(typingFirst):
	}
	tick := time.NewTicker(typingEvery)
	defer tick.Stop()
	for {
		if h := r.link.current(); h != nil {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			h.Publish(pctx, &nostr.Event{Kind: kinds.Typing, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"h", t.channel}}})
			cancel()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
