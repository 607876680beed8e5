package agentbridge

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// untrackedQuiet is how long a session of an untracked turn stays silent
// (no line, no permission request waiting for the owner) before the turn
// counts as over and its text is posted.
const untrackedQuiet = 3 * time.Second

// opensTurn lists the session updates that show an agent working: one of
// them in a session with no prompt of the bridge's in flight starts an
// untracked turn. Bookkeeping updates (available commands, mode, usage...)
// do not.
var opensTurn = map[string]bool{"agent_message_chunk": true, "agent_thought_chunk": true, "tool_call": true, "tool_call_update": true, "plan": true}

// untracked is a turn the agent runs without a prompt of the bridge's: a
// steer the agent started as a turn of its own (outcome startedNewTurn, or an
// adapter that ignores idleBehavior), or steered text that the agent answers
// after the prompt it was injected into has returned. Its lines reach the
// owner as frames of its own turn id, and its agent message text becomes a
// reply once the session is quiet, so no steer is lost or answered twice.
type untracked struct {
	ref turnRef

	mu   sync.Mutex
	text strings.Builder
	last time.Time
	done bool
}

// add appends agent message text; false once the turn is over.
func (u *untracked) add(text string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return false
	}
	u.text.WriteString(text)
	u.last = time.Now()
	return true
}

func (u *untracked) touch() {
	u.mu.Lock()
	u.last = time.Now()
	u.mu.Unlock()
}

func (u *untracked) quiet() time.Duration {
	u.mu.Lock()
	defer u.mu.Unlock()
	return time.Since(u.last)
}

// lineInfo is what routing needs of a raw JSON-RPC line: the session it
// names, its method, and for a session/update its kind.
func lineInfo(line []byte) (session, method, update string) {
	if len(line) == 0 || line[0] != '{' {
		return "", "", ""
	}
	// gjson skips the prompt's text without decoding it: a batch of 50
	// mentions of 2 KB costs 60 µs here, against 630 µs with encoding/json.
	r := gjson.GetManyBytes(line, "params.sessionId", "method", "params.update.sessionUpdate")
	return r[0].String(), r[1].String(), r[2].String()
}

// routeLine sends every raw line of a turn to the observer: the tracked
// turn's lines under its id, an untracked turn's under its own. Other lines
// (initialize, bookkeeping between turns) are not sent.
func (r *runner) routeLine(p *agentProc, dir string, line []byte) {
	session, method, update := lineInfo(line)
	if t := r.turns.tracked(p, session); t != nil {
		r.obs.add(t.ref(), dir, line)
		return
	}
	if session == "" {
		return
	}
	if u := r.untrackedFor(session, dir == "in" && method == "session/update" && opensTurn[update]); u != nil {
		u.touch()
		r.obs.add(u.ref, dir, line)
	}
}

// untrackedFor returns the open untracked turn of session, opening one when
// open is set and none is.
func (r *runner) untrackedFor(session string, open bool) *untracked {
	u, opened := r.turns.untrackedTurn(session, open, func() *untracked {
		return &untracked{ref: turnRef{channel: r.state.ChannelOf(session), session: session, turn: fmt.Sprintf("steer-%d", time.Now().UnixNano())}, last: time.Now()}
	})
	if !opened {
		return u
	}
	r.log.Info("the agent works in a session with no prompt in flight (a steer it started as a turn); following it", "session", session, "channel", u.ref.channel, "turn", u.ref.turn)
	go r.closeWhenQuiet(u)
	return u
}

// untrackedText adds agent message text to the session's untracked turn,
// opening one if needed (a turn that just closed is not reopened: a new one
// starts).
func (r *runner) untrackedText(session, text string) {
	for !r.untrackedFor(session, true).add(text) {
	}
}

// closeWhenQuiet ends an untracked turn once its session is quiet.
func (r *runner) closeWhenQuiet(u *untracked) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-r.disp.closed:
			return
		case <-tick.C:
		}
		if u.quiet() >= untrackedQuiet && !r.turns.waitingForOwner(u.ref.session) {
			r.finishUntracked(u)
			return
		}
	}
}

// flushUntracked ends the session's untracked turn now, before a prompt of
// the bridge's starts in it.
func (r *runner) flushUntracked(session string) {
	if u := r.untrackedFor(session, false); u != nil {
		r.finishUntracked(u)
	}
}

// finishUntracked closes an untracked turn and posts its text, if any, like
// the reply to a queued steer: top level in its channel, p = the owner.
func (r *runner) finishUntracked(u *untracked) {
	r.turns.closeUntracked(u)
	u.mu.Lock()
	if u.done {
		u.mu.Unlock()
		return
	}
	u.done = true
	text := strings.TrimSpace(u.text.String())
	u.mu.Unlock()
	if text == "" {
		return
	}
	if u.ref.channel == "" {
		r.log.Error("an untracked turn's answer has no channel to go to (unknown session)", "session", u.ref.session, "bytes", len(text))
		return
	}
	ctx := r.runCtx
	if ctx == nil {
		ctx = context.Background()
	}
	r.postReply(ctx, []Mention{{Channel: u.ref.channel, Author: r.owner}}, text)
}
