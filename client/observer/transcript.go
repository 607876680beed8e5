package observer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Transcript is the owner's live view of an agent, built from decrypted
// observer frames by Apply (a pure reducer: no I/O, no clock).
// Frames may arrive out of order (the owner's client may reorder them): a
// late frame fills its gap, and a tool's status never moves backwards.
type Transcript struct {
	Turns   []*TurnView
	History []*TurnView // session/load replays (turn "load:<session>"), never a turn
	Gaps    int         // frames still missing (seq numbers skipped and not seen since)
	lastSeq uint64
	missing map[uint64]bool
	byTurn  map[string]*TurnView
}

// maxTrackedGap bounds how many skipped seq numbers are remembered.
const maxTrackedGap = 4096

// TurnView is one turn as the owner sees it, or (Replay) the history a
// session/load replayed: the session's earlier prompts (Prompt) and answers
// (Text), kept apart from every turn.
type TurnView struct {
	Channel, Session, Turn string
	Replay                 bool
	Prompt                 string
	Text                   string
	Thoughts               string
	Tools                  []*ToolView
	Plan                   []PlanItem
	Permissions            []*PermissionView
	Stop                   string // the prompt's stopReason, when finished (or StopBridgeRestarted)
}

// ToolView is a tool call and its latest status.
type ToolView struct {
	ID, Title, Kind, Status string
}

// PlanItem is one entry of the agent's plan.
type PlanItem struct {
	Content, Status string
}

// PermissionView is a session/request_permission and how it was answered.
type PermissionView struct {
	Request  json.RawMessage // JSON-RPC id, for the control frame
	Session  string
	ToolCall string
	Title    string
	Options  []OptionView
	Answer   string // the chosen optionId, "cancelled", or "" while pending
}

// OptionView is one permission option.
type OptionView struct {
	ID, Name, Kind string
}

// Event is one change Apply made, for line-by-line output.
type Event struct {
	Kind string // prompt, text, thought, tool, plan, permission, answered, stop, gap; history (replayed text)
	Turn *TurnView
	Text string
}

// NewTranscript returns an empty transcript.
func NewTranscript() *Transcript {
	return &Transcript{byTurn: map[string]*TurnView{}, missing: map[uint64]bool{}}
}

// rpc is the part of a JSON-RPC message the transcript reads.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// UpdateParams is the part of session/update params the bridge and the
// transcript read.
type UpdateParams struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string `json:"sessionUpdate"`
		Content       struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		toolFields
		Entries []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"entries"`
	} `json:"update"`
}

type toolFields struct {
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title"`
	Kind       string `json:"kind"`
	Status     string `json:"status"`
}

// Apply folds one frame into the transcript and returns what changed.
func (tr *Transcript) Apply(f Frame) []Event {
	var evs []Event
	switch {
	case tr.lastSeq != 0 && f.Seq > tr.lastSeq+1:
		n := f.Seq - tr.lastSeq - 1
		tr.Gaps += int(n)
		for s := tr.lastSeq + 1; s < f.Seq && len(tr.missing) < maxTrackedGap; s++ {
			tr.missing[s] = true
		}
	case f.Seq < tr.lastSeq && tr.missing[f.Seq]:
		delete(tr.missing, f.Seq)
		tr.Gaps--
	}
	if f.Seq > tr.lastSeq {
		tr.lastSeq = f.Seq
	}
	t := tr.byTurn[f.Turn]
	if t == nil && f.Dir == DirBridge {
		return evs // a note on a turn this watcher never saw: nothing to end
	}
	if t == nil {
		t = &TurnView{Channel: f.Channel, Session: f.Session, Turn: f.Turn, Replay: strings.HasPrefix(f.Turn, loadPrefix)}
		tr.byTurn[f.Turn] = t
		if t.Replay {
			tr.History = append(tr.History, t)
		} else {
			tr.Turns = append(tr.Turns, t)
		}
	}
	if f.Session != "" {
		t.Session = f.Session
	}
	var m rpc
	if json.Unmarshal(f.Msg, &m) != nil {
		return evs
	}
	ev := func(kind, text string) { evs = append(evs, Event{Kind: kind, Turn: t, Text: text}) }
	switch {
	case f.Dir == DirBridge:
		var n BridgeNote
		if json.Unmarshal(f.Msg, &n) == nil && n.Ended != "" && t.Stop == "" {
			t.Stop = n.Ended
			ev("stop", n.Ended)
		}
	case f.Dir == "out" && m.Method == "session/prompt":
		var p struct {
			Prompt []struct{ Text string } `json:"prompt"`
		}
		json.Unmarshal(m.Params, &p)
		t.Stop = "" // a turn prompted again (after a crash, or by the next bridge run) is in flight again
		for _, b := range p.Prompt {
			t.Prompt += b.Text
		}
		ev("prompt", t.Prompt)
	case f.Dir == "in" && m.Method == "session/update":
		tr.update(t, m.Params, ev)
	case f.Dir == "in" && m.Method == "session/request_permission":
		var p struct {
			SessionID string     `json:"sessionId"`
			ToolCall  toolFields `json:"toolCall"`
			Options   []struct {
				OptionID string `json:"optionId"`
				Name     string `json:"name"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		json.Unmarshal(m.Params, &p)
		if tr.knownRequest(t, f.Resent, p.SessionID, m.ID) {
			break // already shown
		}
		pv := &PermissionView{Request: m.ID, Session: p.SessionID, ToolCall: p.ToolCall.ToolCallID, Title: p.ToolCall.Title}
		for _, o := range p.Options {
			pv.Options = append(pv.Options, OptionView{o.OptionID, o.Name, o.Kind})
		}
		if pv.Title == "" {
			if tv := t.tool(p.ToolCall.ToolCallID); tv != nil {
				pv.Title = tv.Title
			}
		}
		t.upsertTool(p.ToolCall)
		t.Permissions = append(t.Permissions, pv)
		ev("permission", pv.Title)
	case f.Dir == "out" && m.Method == "" && len(m.ID) > 0:
		var r struct {
			Outcome struct {
				Outcome  string `json:"outcome"`
				OptionID string `json:"optionId"`
			} `json:"outcome"`
		}
		if json.Unmarshal(m.Result, &r) != nil || r.Outcome.Outcome == "" {
			break
		}
		for _, pv := range t.Permissions {
			if pv.Answer == "" && bytes.Equal(bytes.TrimSpace(pv.Request), bytes.TrimSpace(m.ID)) {
				pv.Answer = r.Outcome.OptionID
				if r.Outcome.Outcome == "cancelled" {
					pv.Answer = "cancelled"
				}
				ev("answered", pv.Answer)
			}
		}
	case f.Dir == "in" && m.Method == "" && len(m.Result) > 0:
		var r struct {
			StopReason string `json:"stopReason"`
		}
		if json.Unmarshal(m.Result, &r) == nil && r.StopReason != "" {
			t.Stop = r.StopReason
			ev("stop", r.StopReason)
		}
	}
	return evs
}

func (tr *Transcript) update(t *TurnView, params json.RawMessage, ev func(kind, text string)) {
	var p UpdateParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	u := p.Update
	switch u.SessionUpdate {
	case "agent_message_chunk":
		t.Text += u.Content.Text
		if t.Replay {
			ev("history", u.Content.Text)
		} else {
			ev("text", u.Content.Text)
		}
	case "user_message_chunk": // only a replay sends the user's side
		if t.Replay {
			t.Prompt += u.Content.Text
			ev("history", u.Content.Text)
		}
	case "agent_thought_chunk":
		t.Thoughts += u.Content.Text
		ev("thought", u.Content.Text)
	case "tool_call", "tool_call_update":
		tv := t.upsertTool(u.toolFields)
		ev("tool", fmt.Sprintf("%s [%s]", tv.Title, tv.Status))
	case "plan":
		t.Plan = t.Plan[:0]
		for _, e := range u.Entries {
			t.Plan = append(t.Plan, PlanItem{e.Content, e.Status})
		}
		ev("plan", fmt.Sprintf("%d entries", len(t.Plan)))
	}
}

func (t *TurnView) tool(id string) *ToolView {
	for _, tv := range t.Tools {
		if tv.ID == id {
			return tv
		}
	}
	return nil
}

// upsertTool records a tool call; updates may arrive before the call itself.
func (t *TurnView) upsertTool(f toolFields) *ToolView {
	tv := t.tool(f.ToolCallID)
	if tv == nil {
		tv = &ToolView{ID: f.ToolCallID}
		t.Tools = append(t.Tools, tv)
	}
	if f.Title != "" {
		tv.Title = f.Title
	}
	if f.Kind != "" {
		tv.Kind = f.Kind
	}
	if statusRank(f.Status) > statusRank(tv.Status) {
		tv.Status = f.Status
	}
	if tv.Title == "" {
		tv.Title = tv.ID
	}
	return tv
}

// knownRequest says whether a permission request frame for turn t shows a
// request the transcript has already: a request sent again for a late
// watcher (resent) whose session and JSON-RPC id it has, or the same
// request of the same turn still waiting (its resent copy came first).
// JSON-RPC ids start again with each agent process while a session
// outlives it (a bridge restart, a crash), so a new request with the id of
// an answered one is new; one with the id of a request still waiting in
// another turn shows that request's process gone: it is marked cancelled.
func (tr *Transcript) knownRequest(t *TurnView, resent bool, session string, id json.RawMessage) bool {
	var last *PermissionView
	var in *TurnView
	for _, tv := range tr.Turns {
		for _, pv := range tv.Permissions {
			if pv.Session == session && bytes.Equal(bytes.TrimSpace(pv.Request), bytes.TrimSpace(id)) {
				last, in = pv, tv
			}
		}
	}
	switch {
	case last == nil:
		return false
	case resent:
		return true
	case last.Answer != "" || in.Stop != "":
		return false
	case in == t:
		return true
	}
	last.Answer = "cancelled"
	return false
}

// Pending returns the permission requests still waiting for an answer.
func (tr *Transcript) Pending() []*PermissionView {
	var out []*PermissionView
	for _, t := range tr.Turns {
		for _, pv := range t.Permissions {
			if pv.Answer == "" && t.Stop == "" {
				out = append(out, pv)
			}
		}
	}
	return out
}

// statusRank orders tool call statuses; a late frame cannot undo progress.
func statusRank(s string) int {
	switch s {
	case "pending":
		return 1
	case "in_progress":
		return 2
	case "completed", "failed":
		return 3
	}
	return 0
}

// Turn is the view of turn id (nil if no frame named it).
func (tr *Transcript) Turn(id string) *TurnView { return tr.byTurn[id] }

// InFlight lists the turns seen that have not finished (a session/load
// replay is never one): what makes an agent "working" to its owner.
func (tr *Transcript) InFlight() []*TurnView {
	var out []*TurnView
	for _, t := range tr.Turns {
		if t.Stop == "" && !t.Replay {
			out = append(out, t)
		}
	}
	return out
}
