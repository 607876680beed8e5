package test

import (
	"strings"
	"testing"
)

// A mention of the agent from hive chat (the scripted agent through the
// real `hive bridge`): the sidebar shows it working in the channel, then
// idle again, and its one reply shows under the mention as the thread's
// latest reply.
func TestChatTUIAgentMention(t *testing.T) {
	e, _ := startScripted(t)
	alice := aliceChat(t, e)
	alice.waitText("#room", "● connected", "⚙ helper (alice", "  idle")
	alice.complete("hel", "helper")
	alice.say("[[slow:4s]] what is up?")
	alice.waitFor("the agent working", func(s string) bool {
		l := sideLine(s, "working ")
		return strings.HasSuffix(l, "s #room")
	})
	s := alice.waitText("↳ 1 reply", "· helper (alice's agent): heard 1:")
	alice.waitFor("the agent idle again", func(s string) bool { return sideLine(s, "idle") == "idle" })
	if n := strings.Count(s, "heard 1:"); n != 1 {
		t.Fatalf("the reply shows %d times:\n%s", n, s)
	}
	if n := len(e.replies(t, "room")); n != 1 {
		t.Fatalf("the agent sent %d replies", n)
	}
}

// scriptedAgentChat is a real bridge with the scripted agent "helper" of
// alice's in room, and hive chat as alice showing it.
func scriptedAgentChat(t *testing.T) (*bridgeEnv, *tmuxPane) {
	t.Helper()
	e, _ := startScripted(t)
	alice := aliceChat(t, e)
	alice.waitText("#room", "● connected", "⚙ helper (alice")
	return e, alice
}

// aliceChat runs hive chat as alice (the agent's owner, named) in room.
func aliceChat(t *testing.T, e *bridgeEnv) *tmuxPane {
	t.Helper()
	e.a.must(e.alice.sign(t, 0, `{"name":"alice"}`))
	return chatAs(t, e, "alice", e.alice.sk, "")
}

// A permission request of the agent shows in the sidebar and the status
// line wherever the owner is (here in another channel than the agent's); the agent pane (the watch model) lists the
// agent's own options, a key answers it, the tool runs and the reply comes.
func TestChatTUIAgentPermission(t *testing.T) {
	_, alice := scriptedAgentChat(t)
	alice.say("@helper [[permission]] may I?")
	alice.say("/create elsewhere") // the request must show in another channel too
	alice.waitText("#elsewhere", "⚠ asks:", "⚠ permission asked:")
	alice.keys("C-g")
	s := alice.waitText("PERMISSION REQUESTED", "[1] ")
	if strings.Count(s, "PERMISSION REQUESTED") != 1 {
		t.Fatalf("the request shows more than once:\n%s", s)
	}
	alice.keys("1")
	alice.waitFor("the tool completed", func(s string) bool {
		return strings.Contains(s, "[completed]") && !strings.Contains(s, "PERMISSION REQUESTED") && !strings.Contains(s, "⚠")
	})
	alice.keys("Escape")
	alice.keys("C-p") // back to room
	alice.waitText("#room", "↳ 1 reply", "helper (alice's agent): permission: allow")
}

// /steer and /cancel from hive chat reach the agent of the open thread
// through the real bridge: a steer lands in the running turn (the scripted
// agent's answer names it), a cancel ends a turn that would run for two
// minutes.
func TestChatTUIAgentSteerCancel(t *testing.T) {
	_, alice := scriptedAgentChat(t)
	working := func(s string) bool { return strings.HasSuffix(sideLine(s, "working "), "s #room") }

	alice.say("@helper [[steerable:40s]] go")
	alice.waitFor("the agent working", working)
	alice.say("/thread")
	alice.waitText("› thread: @helper [[steerable:40s]] go")
	alice.say("/steer left please")
	alice.waitText("steer sent to helper")
	alice.waitText("heard 1: @helper [[steerable:40s]] go steered: left please")
	alice.keys("Escape")

	alice.say("@helper [[slow:120s]] a long one")
	alice.waitFor("the agent working", working)
	alice.say("/cancel")
	alice.waitText("cancel sent to helper")
	alice.waitFor("the agent idle again", func(s string) bool { return sideLine(s, "idle") == "idle" })
}
