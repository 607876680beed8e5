package test

import (
	"testing"
	"time"
)

// kill -9 of the bridge in the middle of a turn, a mention posted while it
// is down, a restart: the mention that was in flight and the one posted
// while down are answered together (the session resumed), and so is every
// live mention after them, a second apart (issue 23 item 9's scenario;
// with the real claude-agent-acp the same run passed as well).
func TestBridgeKill9ThenLiveMentions(t *testing.T) {
	e := newBridgeEnv(t)
	e.scripted(t)
	b := e.start(t)
	m0 := e.mention(t, e.a, e.alice, "room", "the word is [[remember:pineapple]]")
	e.waitReply(t, "room", m0.ID, 20*time.Second, b)
	inFlight := e.mention(t, e.a, e.alice, "room", "[[slow:3s]] slow one")
	time.Sleep(time.Second)
	b.kill9()
	down := e.mention(t, e.a, e.alice, "room", "while you were down [[recall]]")
	b2 := e.start(t)
	r := e.waitReply(t, "room", down.ID, 30*time.Second, b2)
	if !r.Tags.ContainsAny("q", []string{inFlight.ID}) || r.Content != "recall: pineapple" {
		t.Fatalf("the reply after the restart %q %v does not answer both mentions", r.Content, r.Tags)
	}
	for i, text := range []string{"live one", "live two"} {
		time.Sleep(time.Second)
		m := e.mention(t, e.a, e.alice, "room", text)
		if r := e.waitReply(t, "room", m.ID, 30*time.Second, b2); r.Content != "heard 1: "+text {
			t.Fatalf("live mention %d: reply %q", i+1, r.Content)
		}
	}
}
