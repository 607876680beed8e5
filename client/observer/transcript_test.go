package observer

import (
	"encoding/json"
	"strings"
	"testing"
)

func frame(seq uint64, dir, msg string) Frame {
	return Frame{V: 1, Seq: seq, Channel: "c", Session: "s1", Turn: "m1", Dir: dir, Msg: json.RawMessage(msg)}
}

func TestTranscriptReducer(t *testing.T) {
	tr := NewTranscript()
	frames := []Frame{
		frame(1, "out", `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"do it"}]}}`),
		frame(2, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}}}}`),
		frame(3, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"read","status":"completed"},{"content":"write","status":"pending"}]}}}`),
		// the permission request may come before its tool_call
		frame(4, "in", `{"jsonrpc":"2.0","id":"p-7","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"rm -rf build"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`),
		frame(5, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"rm -rf build","kind":"execute","status":"pending"}}}`),
	}
	for _, f := range frames {
		tr.Apply(f)
	}
	if p := tr.Pending(); len(p) != 1 || string(p[0].Request) != `"p-7"` || len(p[0].Options) != 2 || p[0].Title != "rm -rf build" {
		t.Fatalf("pending %+v", p)
	}
	// seq 6 lost
	evs := tr.Apply(frame(7, "out", `{"jsonrpc":"2.0","id":"p-7","result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`))
	if tr.Gaps != 1 || len(evs) != 1 || evs[0].Kind != "answered" {
		t.Fatalf("gaps %d events %+v", tr.Gaps, evs)
	}
	// seq 6 arrives late, out of order: the gap is filled, the status kept
	tr.Apply(frame(6, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress"}}}`))
	if tr.Gaps != 0 {
		t.Fatalf("late frame did not fill the gap: %d", tr.Gaps)
	}
	tr.Apply(frame(8, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}`))
	tr.Apply(frame(9, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done "}}}}`))
	tr.Apply(frame(10, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"now"}}}}`))
	tr.Apply(frame(11, "in", `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`))

	if len(tr.Turns) != 1 {
		t.Fatalf("%d turns", len(tr.Turns))
	}
	tv := tr.Turns[0]
	if tv.Prompt != "do it" || tv.Thoughts != "hmm" || tv.Text != "done now" || tv.Stop != "end_turn" {
		t.Fatalf("turn %+v", tv)
	}
	if len(tv.Tools) != 1 || tv.Tools[0].Status != "completed" || tv.Tools[0].Kind != "execute" {
		t.Fatalf("tools %+v", tv.Tools[0])
	}
	if len(tv.Plan) != 2 || tv.Plan[1].Status != "pending" {
		t.Fatalf("plan %+v", tv.Plan)
	}
	if tv.Permissions[0].Answer != "ok" || len(tr.Pending()) != 0 {
		t.Fatalf("permission answer %q", tv.Permissions[0].Answer)
	}
}

func TestTranscriptIgnoresGarbage(t *testing.T) {
	tr := NewTranscript()
	tr.Apply(Frame{Seq: 1, Turn: "x", Dir: "in", Msg: json.RawMessage(`{"truncated":123456}`)})
	tr.Apply(Frame{Seq: 2, Turn: "x", Dir: "in", Msg: json.RawMessage(`not json`)})
	if len(tr.Turns) != 1 || tr.Turns[0].Text != "" || tr.Gaps != 0 {
		t.Fatalf("%+v", tr.Turns[0])
	}
}

func TestTranscriptLateToolCallKeepsStatus(t *testing.T) {
	tr := NewTranscript()
	tr.Apply(frame(2, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}`))
	tr.Apply(frame(1, "in", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"read","status":"pending"}}}`))
	if tv := tr.Turns[0].Tools[0]; tv.Status != "completed" || tv.Title != "read" {
		t.Fatalf("%+v", tv)
	}
}

// A request sent again for a late watcher is shown once; a watcher that saw
// only the resent frame has it pending.
func TestTranscriptPermissionSentAgain(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"ls"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}`
	tr := NewTranscript()
	if evs := tr.Apply(frame(1, "in", req)); len(evs) != 1 || evs[0].Kind != "permission" {
		t.Fatalf("first: %+v", evs)
	}
	if evs := tr.Apply(frame(2, "in", req)); len(evs) != 0 {
		t.Fatalf("resent request changed the view: %+v", evs)
	}
	if p := tr.Pending(); len(p) != 1 {
		t.Fatalf("%d pending", len(p))
	}
	late := NewTranscript()
	late.Apply(frame(40, "in", req))
	if p := late.Pending(); len(p) != 1 || p[0].Title != "ls" {
		t.Fatalf("late watcher: %+v", p)
	}
}

// The frames of a session/load (turn "load:<session>") are the session's
// history: kept apart from the next turn, whose text is only its own, also
// when a replayed frame arrives late.
func TestTranscriptKeepsLoadReplayApart(t *testing.T) {
	load := func(seq uint64, dir, msg string) Frame {
		f := frame(seq, dir, msg)
		f.Turn = LoadTurn("s1")
		return f
	}
	chunk := func(kind, text string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"` + kind + `","content":{"type":"text","text":"` + text + `"}}}}`
	}
	tr := NewTranscript()
	var kinds []string
	for _, f := range []Frame{
		load(1, "out", `{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s1","cwd":"/","mcpServers":[]}}`),
		load(2, "in", chunk("user_message_chunk", "say hello")),
		load(4, "in", `{"jsonrpc":"2.0","id":1,"result":{}}`),
		frame(5, "out", `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"run it"}]}}`),
		frame(6, "in", chunk("agent_message_chunk", "the command ran")),
		load(3, "in", chunk("agent_message_chunk", "hello from the mock model")), // late
		frame(7, "in", `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`),
	} {
		for _, ev := range tr.Apply(f) {
			kinds = append(kinds, ev.Kind)
		}
	}
	if len(tr.Turns) != 1 || tr.Turns[0].Text != "the command ran" || tr.Turns[0].Prompt != "run it" || tr.Turns[0].Replay {
		t.Fatalf("turns %+v", tr.Turns)
	}
	if len(tr.History) != 1 {
		t.Fatalf("%d histories", len(tr.History))
	}
	h := tr.History[0]
	if !h.Replay || h.Session != "s1" || h.Prompt != "say hello" || h.Text != "hello from the mock model" || h.Stop != "" {
		t.Fatalf("history %+v", h)
	}
	if tr.Gaps != 0 || len(tr.Pending()) != 0 {
		t.Fatalf("gaps %d, pending %d", tr.Gaps, len(tr.Pending()))
	}
	if got := strings.Join(kinds, ","); got != "history,prompt,text,history,stop" {
		t.Fatalf("events %s", got)
	}
}

// JSON-RPC ids start again with each agent process while the session
// outlives it: after a bridge restart the next turn's request may carry the
// session and id of one answered before. It is a new request, pending; a
// copy of it sent again (resent) is not; and a request that waited in a
// turn whose bridge died is shown cancelled once its id comes back.
func TestTranscriptRequestAfterRestart(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"ls"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}`
	answer := `{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`
	in := func(seq uint64, turn string, resent bool) Frame {
		f := frame(seq, "in", req)
		f.Turn, f.Resent = turn, resent
		return f
	}
	tr := NewTranscript()
	tr.Apply(in(1, "m1", false))
	tr.Apply(frame(2, "out", answer))
	if evs := tr.Apply(in(1, "m2", false)); len(evs) != 1 || evs[0].Kind != "permission" {
		t.Fatalf("the restarted bridge's request (same session and id, another turn): %+v", evs)
	}
	if p := tr.Pending(); len(p) != 1 || tr.Turns[1].Permissions[0] != p[0] {
		t.Fatalf("pending after the restart: %+v", p)
	}
	if evs := tr.Apply(in(2, "m2", true)); len(evs) != 0 || len(tr.Pending()) != 1 {
		t.Fatalf("the resent copy changed the view: %+v", evs)
	}
	// m2's bridge dies with the request waiting; the next run asks again in m3
	tr.Apply(in(1, "m3", false))
	if p := tr.Pending(); len(p) != 1 || tr.Turns[2].Permissions[0] != p[0] || tr.Turns[1].Permissions[0].Answer != "cancelled" {
		t.Fatalf("pending after a second restart: %+v (the dead run's request: %q)", p, tr.Turns[1].Permissions[0].Answer)
	}
}

// A turn whose bridge run stopped before its prompt returned ends with the
// next run's note (StopBridgeRestarted); a note never overrides the
// agent's own stop, and a turn prompted again is in flight again.
func TestTranscriptBridgeEndsTurn(t *testing.T) {
	prompt := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"do it"}]}}`
	ended := `{"ended":"` + StopBridgeRestarted + `"}`
	tr := NewTranscript()
	tr.Apply(frame(1, "out", prompt))
	if len(tr.InFlight()) != 1 {
		t.Fatalf("in flight %v", tr.InFlight())
	}
	evs := tr.Apply(frame(1, DirBridge, ended))
	if len(tr.InFlight()) != 0 || tr.Turn("m1").Stop != StopBridgeRestarted || len(evs) != 1 || evs[0].Kind != "stop" {
		t.Fatalf("after the note: in flight %v, turn %+v, events %+v", tr.InFlight(), tr.Turn("m1"), evs)
	}
	tr.Apply(frame(2, "out", prompt))
	if len(tr.InFlight()) != 1 {
		t.Fatal("a turn prompted again is not in flight")
	}
	tr.Apply(frame(3, "in", `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`))
	tr.Apply(frame(4, DirBridge, ended))
	if got := tr.Turn("m1").Stop; got != "end_turn" {
		t.Fatalf("the note replaced the agent's stop: %q", got)
	}
	if tr.Turn("nope") != nil {
		t.Fatal("a turn no frame named")
	}
	unseen := frame(5, DirBridge, ended)
	unseen.Turn = "m2"
	if evs := tr.Apply(unseen); len(evs) != 0 || tr.Turn("m2") != nil || len(tr.Turns) != 1 {
		t.Fatalf("a note on a turn never seen made one: %+v %+v", evs, tr.Turns)
	}
}
