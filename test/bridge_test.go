package test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/nbd-wtf/go-nostr"
)

// A mention gets exactly one threaded reply from the agent's key; the owner
// decrypts the turn's observer frames; another member gets nothing.
func TestBridgeMentionReplyAndFrames(t *testing.T) {
	e, b := startScripted(t)
	fw := e.watchFrames(t)

	root := e.b.must(e.bob.sign(t, 9, "a thread", nostr.Tag{"h", "room"}))
	m := e.mention(t, e.a, e.alice, "room", "hello agent [[think]] [[tool]]", nostr.Tag{"e", root.ID, "", "root"})
	reply := e.waitReply(t, "room", m.ID, 20*time.Second, b)
	if !strings.Contains(reply.Content, "hello agent") || !strings.HasPrefix(reply.Content, "heard 1:") {
		t.Fatalf("reply content %q", reply.Content)
	}
	replyTags(t, reply, "room", root.ID, m.ID, e.alice.pk)
	// The owner's frames: the prompt out, the text in, seq without gaps.
	frames := fw.until(10*time.Second, func(f observer.Frame) bool {
		return f.Dir == "in" && strings.Contains(string(f.Msg), `"stopReason"`)
	})
	var sawPrompt, sawThought, sawTool bool
	for i, f := range frames {
		if f.V != 1 || f.Channel != "room" || f.Turn != m.ID {
			t.Fatalf("frame %d: %+v", i, f)
		}
		if i > 0 && f.Seq != frames[i-1].Seq+1 {
			t.Fatalf("seq gap: %d after %d", f.Seq, frames[i-1].Seq)
		}
		sawPrompt = sawPrompt || (f.Dir == "out" && method(f) == "session/prompt")
		sawThought = sawThought || strings.Contains(string(f.Msg), "agent_thought_chunk")
		sawTool = sawTool || strings.Contains(string(f.Msg), `"tool_call"`)
		if !json.Valid(f.Msg) {
			t.Fatalf("frame msg is not JSON: %s", f.Msg)
		}
	}
	if !sawPrompt || !sawThought || !sawTool {
		t.Fatalf("frames: prompt %v thought %v tool %v (%d frames)", sawPrompt, sawThought, sawTool, len(frames))
	}
	// Bob, another member, reads no frames and is refused a targeted REQ.
	if evs, closed := e.b.req("bobframes", nostr.Filter{Kinds: []int{24200}, Tags: nostr.TagMap{"p": {e.bob.pk}}}); len(evs) != 0 || closed != "" {
		t.Fatalf("bob's own frames: %d events, closed %q", len(evs), closed)
	}
	if _, closed := e.b.req("spy", nostr.Filter{Kinds: []int{24200}, Tags: nostr.TagMap{"p": {e.alice.pk}}}); !strings.HasPrefix(closed, "restricted:") {
		t.Fatalf("bob's REQ for alice's frames: closed %q, want restricted:", closed)
	}
	// Exactly one reply, also once the bridge has handled all before a probe.
	e.settled(t, "room", b)
	if n := e.repliesTo(t, "room", m.ID); n != 1 {
		t.Fatalf("%d replies to the mention", n)
	}
	// Bob is not admitted by answer = "owner": no reply.
	bm := e.mention(t, e.b, e.bob, "room", "bob asks")
	if rs := e.waitReceipt(t, e.agent.pk, bm.ID, b); len(rs) != 1 || !strings.HasPrefix(rs[0], "not-answered: ") {
		t.Fatalf("bob's mention: receipts %q, want one not-answered", rs)
	}
	if n := e.repliesTo(t, "room", bm.ID); n != 0 {
		t.Fatalf("bob's mention got %d replies with answer = owner", n)
	}
}

// permissionRequest waits for the agent's session/request_permission frame
// and returns its session, JSON-RPC id and allow_once option.
func permissionRequest(t *testing.T, fw *frameWatch) (string, json.RawMessage, string) {
	t.Helper()
	frames := fw.until(90*time.Second, func(f observer.Frame) bool { return method(f) == "session/request_permission" })
	f := frames[len(frames)-1]
	var m struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Options []struct{ OptionID, Kind string } `json:"options"`
		} `json:"params"`
	}
	json.Unmarshal(f.Msg, &m)
	allow := ""
	for _, o := range m.Params.Options {
		if o.Kind == "allow_once" {
			allow = o.OptionID
		}
	}
	return f.Session, m.ID, allow
}

// With permissions = "ask": no answer in time rejects; the owner's control
// frame approves; a control frame from someone else is ignored.
func TestBridgePermissionTimeoutAndApproval(t *testing.T) {
	e, b := startScripted(t, `permissions = "ask"`, `permission_timeout = "2s"`)
	fw := e.watchFrames(t)

	m1 := e.mention(t, e.a, e.alice, "room", "may I? [[permission]]")
	permissionRequest(t, fw)
	if r := e.waitReply(t, "room", m1.ID, 20*time.Second, b); !strings.Contains(r.Content, "permission: reject") {
		t.Fatalf("timed-out permission: reply %q", r.Content)
	}

	m2 := e.mention(t, e.a, e.alice, "room", "again [[permission]]")
	session, id, _ := permissionRequest(t, fw)
	// bob's control frame is refused by the hub (not his agent) and would be ignored anyway
	forged, _ := observer.SealFrame(observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: "allow"}, e.ck, e.agent.pk)
	forged.Sign(e.bob.sk)
	if ok, _ := e.b.publish(forged); ok {
		t.Fatal("the hub accepted bob's control frame to alice's agent")
	}
	e.control(t, observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: "allow"})
	if r := e.waitReply(t, "room", m2.ID, 20*time.Second, b); !strings.Contains(r.Content, "permission: allow") {
		t.Fatalf("approved permission: reply %q", r.Content)
	}
}

// A process that dies mid-turn: the turn is retried on a fresh process that
// resumes the session; the mention is answered once.
func TestBridgeCrashMidTurnRecovers(t *testing.T) {
	e, b := startScripted(t)
	e.ask(t, b, "remember [[remember:kiwi]]", 20*time.Second)
	m, r := e.ask(t, b, "[[crash-once]] [[recall]]", 30*time.Second)
	if r.Content != "recall: kiwi" {
		t.Fatalf("reply after crash %q; log:\n%s", r.Content, b.logs())
	}
	if !strings.Contains(b.logs(), "retrying on a fresh process") || !strings.Contains(b.logs(), "session resumed") {
		t.Fatalf("no retry with session/load in the log:\n%s", b.logs())
	}
	e.settled(t, "room", b)
	if n := e.repliesTo(t, "room", m.ID); n != 1 {
		t.Fatalf("%d replies", n)
	}
}

// A process that always crashes: the breaker gives up after three attempts
// and one failure reply is posted.
func TestBridgeCrashLoopFailureReply(t *testing.T) {
	e, b := startScripted(t)
	m, r := e.ask(t, b, "[[crash]]", 40*time.Second)
	if !strings.Contains(r.Content, "crashed 3 times") {
		t.Fatalf("failure reply %q", r.Content)
	}
	e.settled(t, "room", b)
	if n := e.repliesTo(t, "room", m.ID); n != 1 {
		t.Fatalf("%d replies", n)
	}
}

// startRemembering runs a bridge on the scripted agent whose session in
// room has remembered a word.
func startRemembering(t *testing.T) (*bridgeEnv, *bridgeProc, *nostr.Event) {
	e, b := startScripted(t)
	m0, _ := e.ask(t, b, "the word is [[remember:pineapple]]", 20*time.Second)
	return e, b, m0
}

// kill -9 of the bridge: a mention posted while it is down is answered once
// after the restart, and the session is resumed with its context.
func TestBridgeKill9ResumesSession(t *testing.T) {
	e, b, m0 := startRemembering(t)
	b.kill9()
	m1 := e.mention(t, e.a, e.alice, "room", "while you were down [[recall]]")
	fw := e.watchFrames(t)
	b2 := e.start(t)
	r := e.waitReply(t, "room", m1.ID, 30*time.Second, b2)
	if r.Content != "recall: pineapple" {
		t.Fatalf("reply after restart %q; log:\n%s", r.Content, b2.logs())
	}
	// The owner's transcript: the session/load replay is history (frames of
	// turn "load:<session>"), the resumed turn's text is only its own.
	frames := fw.until(15*time.Second, func(f observer.Frame) bool {
		return f.Turn == m1.ID && f.Dir == "in" && strings.Contains(string(f.Msg), `"stopReason"`)
	})
	tr := observer.NewTranscript()
	for _, f := range frames {
		if method(f) == "session/load" && f.Turn != observer.LoadTurn(f.Session) {
			t.Fatalf("session/load frame under turn %q", f.Turn)
		}
		tr.Apply(f)
	}
	if len(tr.History) != 1 || !strings.Contains(tr.History[0].Text, "(replayed) the word is") {
		t.Fatalf("history %+v", tr.History[0])
	}
	if len(tr.Turns) != 1 || tr.Turns[0].Turn != m1.ID || tr.Turns[0].Text != r.Content {
		t.Fatalf("turns %+v, want one with the reply's text %q", tr.Turns, r.Content)
	}
	e.settled(t, "room", b2)
	for _, id := range []string{m0.ID, m1.ID} {
		if n := e.repliesTo(t, "room", id); n != 1 {
			t.Fatalf("%d replies to %s", n, id)
		}
	}
}

// An agent that cannot load sessions gets a fresh one after a restart, and
// the channel is told so before the reply (the notice goes out while the
// prompt does, never after the reply).
func TestBridgeResumeImpossibleSaysSo(t *testing.T) {
	e, b, m0 := startRemembering(t)
	b.stop()

	e.config(t, []string{goTool(t, "acpagent")}, fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_NO_LOAD = \"1\" }", filepath.Join(e.dir, "sessions")))
	b2 := e.start(t)
	live := e.h.as(t, e.alice)
	since := nostr.Now()
	live.send([]any{"REQ", "agent", nostr.Filter{Kinds: []int{9}, Authors: []string{e.agent.pk}, Tags: nostr.TagMap{"h": {"room"}}, Since: &since}})
	m1 := e.mention(t, e.a, e.alice, "room", "and now? [[recall]]")
	var got []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		m := live.next(time.Until(deadline))
		if str(m[0]) != "EVENT" {
			continue
		}
		var ev nostr.Event
		json.Unmarshal(m[2], &ev)
		reply := ev.Tags.FindLast("e")
		if len(reply) >= 2 && reply[1] == m0.ID {
			continue // the answer before the restart, in the same second
		}
		got = append(got, ev.Content)
		if len(reply) >= 4 && reply[1] == m1.ID && reply[3] == "reply" {
			break
		}
	}
	notice := "(this agent cannot resume sessions: starting a fresh one, without the earlier context)"
	if len(got) != 2 || got[0] != notice || !strings.HasPrefix(got[1], "recall:") || strings.Contains(got[1], "pineapple") {
		t.Fatalf("the agent posted %q, want the notice, then the reply from a fresh session; log:\n%s", got, b2.logs())
	}
}
