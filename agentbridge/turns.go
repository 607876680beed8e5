package agentbridge

import (
	"encoding/json"
	"sync"

	obs "github.com/ainb/hive/client/observer"
	acp "github.com/coder/acp-go-sdk"
)

// turnTable is what an agent runs now: the turn each of its processes is
// prompting, the permission requests waiting for the owner, and the turns
// the agent runs on its own (untracked). Turns, the processes' line hooks
// and control frames all read and change it; every method takes mu.
type turnTable struct {
	mu        sync.Mutex
	running   map[*agentProc]*turn
	perms     map[string]*pendingPerm // permKey(session, JSON-RPC id) -> the request
	untracked map[string]*untracked   // session -> the agent's turn of its own
}

func newTurnTable() *turnTable {
	return &turnTable{running: map[*agentProc]*turn{}, perms: map[string]*pendingPerm{}, untracked: map[string]*untracked{}}
}

// pendingPerm is a session/request_permission waiting for the owner.
type pendingPerm struct {
	session string
	options []acp.PermissionOption
	raw     json.RawMessage                   // the request's line, sent again to a late watcher
	answer  chan acp.RequestPermissionOutcome // buffered 1; written once
	done    bool                              // answered (under turnTable.mu)
}

func permKey(session string, rpcID json.RawMessage) string {
	return session + "\x00" + obs.IDKey(rpcID)
}

// begin records that p runs t; end that it no longer does.
func (tt *turnTable) begin(p *agentProc, t *turn) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.running[p] = t
}

func (tt *turnTable) end(p *agentProc) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	delete(tt.running, p)
}

// tracked is the turn running on p that a line of session belongs to: the
// line names no session or the turn's own, and the turn's prompt has not
// returned yet.
func (tt *turnTable) tracked(p *agentProc, session string) *turn {
	tt.mu.Lock()
	t := tt.running[p]
	tt.mu.Unlock()
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.finished || (session != "" && session != t.session) {
		return nil
	}
	return t
}

// inSession finds the process and turn working in a session.
func (tt *turnTable) inSession(session string) (*agentProc, *turn) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for p, t := range tt.running {
		if t.Session() == session {
			return p, t
		}
	}
	return nil, nil
}

// permission is the pending request of session and rpcID, registered now
// if its line was not seen (cannot happen with a well-formed line).
func (tt *turnTable) permission(session string, rpcID json.RawMessage, options []acp.PermissionOption) *pendingPerm {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.permissionLocked(session, rpcID, options)
}

func (tt *turnTable) permissionLocked(session string, rpcID json.RawMessage, options []acp.PermissionOption) *pendingPerm {
	key := permKey(session, rpcID)
	pp := tt.perms[key]
	if pp == nil {
		pp = &pendingPerm{session: session, options: options, answer: make(chan acp.RequestPermissionOutcome, 1)}
		tt.perms[key] = pp
	}
	return pp
}

// permissionLine registers a request with its raw line.
func (tt *turnTable) permissionLine(session string, rpcID json.RawMessage, options []acp.PermissionOption, line []byte) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.permissionLocked(session, rpcID, options).raw = append(json.RawMessage(nil), line...)
}

// settled forgets a request that was answered (or needed no owner).
func (tt *turnTable) settled(session string, rpcID json.RawMessage) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	key := permKey(session, rpcID)
	if pp := tt.perms[key]; pp != nil {
		pp.done = true
	}
	delete(tt.perms, key)
}

// answerPermission resolves one pending request once; false if there is
// none or the option was not offered.
func (tt *turnTable) answerPermission(session string, rpcID json.RawMessage, option string) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	pp := tt.perms[permKey(session, rpcID)]
	if pp == nil || pp.done {
		return false
	}
	for _, o := range pp.options {
		if string(o.OptionId) == option {
			pp.done = true
			pp.answer <- acp.NewRequestPermissionOutcomeSelected(o.OptionId)
			return true
		}
	}
	return false
}

// cancelPermissions answers every pending request of a session "cancelled".
func (tt *turnTable) cancelPermissions(session string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for _, pp := range tt.perms {
		if pp.session == session && !pp.done {
			pp.done = true
			pp.answer <- acp.NewRequestPermissionOutcomeCancelled()
		}
	}
}

// waitingForOwner reports whether a session has a permission request pending.
func (tt *turnTable) waitingForOwner(session string) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for _, pp := range tt.perms {
		if pp.session == session && !pp.done {
			return true
		}
	}
	return false
}

// waitingLines are the sessions and raw lines of the requests still
// waiting for the owner.
func (tt *turnTable) waitingLines() []pendingPerm {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	var out []pendingPerm
	for _, pp := range tt.perms {
		if !pp.done && pp.raw != nil {
			out = append(out, pendingPerm{session: pp.session, raw: pp.raw})
		}
	}
	return out
}

// untrackedTurn returns the open untracked turn of session; when there is
// none and open is set, it opens the one mk makes (opened).
func (tt *turnTable) untrackedTurn(session string, open bool, mk func() *untracked) (u *untracked, opened bool) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if u := tt.untracked[session]; u != nil || !open {
		return u, false
	}
	u = mk()
	tt.untracked[session] = u
	return u, true
}

// closeUntracked forgets u as its session's open untracked turn.
func (tt *turnTable) closeUntracked(u *untracked) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.untracked[u.ref.session] == u {
		delete(tt.untracked, u.ref.session)
	}
}
