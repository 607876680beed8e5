package test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// Issue 30 item 1: a bridge killed -9 while a mention waits comes back,
// answers that mention, and then answers every live mention too: three one
// after another, one whose agent process crashes mid-turn, and two sent
// during a slow turn (batched into one prompt). Each is answered exactly
// once, with processes = 1.
func TestBridgeRestartThenEveryLiveMention(t *testing.T) {
	e, logPath := newLiveEnv(t)
	b := e.start(t)
	m0, _ := e.ask(t, b, "the word is [[remember:pineapple]]", 20*time.Second)
	waiting := e.prompted(t, logPath, "[[slow:4s]] waiting when the bridge dies")
	b.kill9()
	b2 := e.start(t)
	asked := []*nostr.Event{m0, waiting}
	if r := e.waitReply(t, "room", waiting.ID, 60*time.Second, b2); !strings.Contains(r.Content, "waiting when the bridge dies") {
		t.Fatalf("the caught-up reply %q", r.Content)
	}
	asked = append(asked, e.liveRound(t, b2, logPath)...)
	e.answeredOnce(t, "room", asked)
}

// The same after the hub, not the bridge, restarts while a mention waits.
func TestBridgeHubRestartThenEveryLiveMention(t *testing.T) {
	e, logPath := newLiveEnv(t)
	b := e.start(t)
	m0, _ := e.ask(t, b, "before the hub restart", 20*time.Second)
	waiting := e.prompted(t, logPath, "[[slow:2s]] waiting when the hub dies")
	e.restartHub(t)
	e.waitLog(t, b, "msg=reconnected")
	if r := e.waitReply(t, "room", waiting.ID, 60*time.Second, b); !strings.Contains(r.Content, "waiting when the hub dies") {
		t.Fatalf("the reply across the hub restart %q", r.Content)
	}
	asked := append([]*nostr.Event{m0, waiting}, e.liveRound(t, b, logPath)...)
	e.answeredOnce(t, "room", asked)
}

// newLiveEnv is a bridge env with the scripted agent, one process and a
// prompt log.
func newLiveEnv(t *testing.T, agentLines ...string) (*bridgeEnv, string) {
	e := newBridgeEnv(t)
	logPath := filepath.Join(e.dir, "prompts.log")
	e.config(t, []string{goTool(t, "acpagent")}, append([]string{fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_LOG = %q }", filepath.Join(e.dir, "sessions"), logPath), "processes = 1"}, agentLines...)...)
	return e, logPath
}

// liveRound sends three mentions one after another, one whose process
// crashes mid-turn, then a slow one and two more during its turn, and
// checks each answer; it returns the mentions.
func (e *bridgeEnv) liveRound(t *testing.T, b *bridgeProc, logPath string) []*nostr.Event {
	t.Helper()
	var asked []*nostr.Event
	for i := 1; i <= 3; i++ {
		m := e.mention(t, e.a, e.alice, "room", fmt.Sprintf("live %d", i))
		if r := e.waitReply(t, "room", m.ID, 30*time.Second, b); r.Content != fmt.Sprintf("heard 1: live %d", i) {
			t.Fatalf("live mention %d: reply %q", i, r.Content)
		}
		asked = append(asked, m)
	}
	crash := e.mention(t, e.a, e.alice, "room", "[[crash-once]] crashes once")
	if r := e.waitReply(t, "room", crash.ID, 30*time.Second, b); !strings.Contains(r.Content, "crashes once") {
		t.Fatalf("the mention whose process crashed: reply %q", r.Content)
	}
	slow := e.prompted(t, logPath, "[[slow:2s]] a slow one")
	d1 := e.mention(t, e.a, e.alice, "room", "during one")
	d2 := e.mention(t, e.a, e.alice, "room", "during two")
	e.waitReply(t, "room", slow.ID, 30*time.Second, b)
	r := e.waitReply(t, "room", d2.ID, 30*time.Second, b)
	if r.Content != "heard 2: during one | during two" || !r.Tags.ContainsAny("q", []string{d1.ID}) {
		t.Fatalf("the two mentions sent during the slow turn: reply %q %v, want one batched reply", r.Content, r.Tags)
	}
	return append(asked, crash, slow, d1, d2)
}

// prompted has alice mention the agent in room with text and waits until
// the scripted agent (logging to logPath) was prompted with it, mid-turn.
func (e *bridgeEnv) prompted(t *testing.T, logPath, text string) *nostr.Event {
	t.Helper()
	m := e.mention(t, e.a, e.alice, "room", text)
	waitPrompt(t, logPath, m.ID)
	return m
}

// waitPrompt waits until the scripted agent logged a prompt naming id.
func waitPrompt(t *testing.T, path, id string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if slices.ContainsFunc(promptLog(t, path), func(l string) bool { return strings.Contains(l, id) }) {
			return
		}
	}
	t.Fatalf("no prompt naming %s: %v", id, promptLog(t, path))
}

// answeredOnce checks that the agent's messages in channel answer each of
// asked exactly once (as the reply target, or quoted in a batch's reply).
func (e *bridgeEnv) answeredOnce(t *testing.T, channel string, asked []*nostr.Event) {
	t.Helper()
	n := map[string]int{}
	for _, ev := range e.replies(t, channel) {
		ids := map[string]bool{}
		for _, tg := range ev.Tags {
			if (len(tg) >= 4 && tg[0] == "e" && tg[3] == "reply") || (len(tg) >= 2 && tg[0] == "q") {
				ids[tg[1]] = true
			}
		}
		for id := range ids {
			n[id]++
		}
	}
	for _, m := range asked {
		if n[m.ID] != 1 {
			t.Errorf("mention %q answered %d times, want once", m.Content, n[m.ID])
		}
	}
}

// waitLog waits until the bridge's log holds s.
func (e *bridgeEnv) waitLog(t *testing.T, b *bridgeProc, s string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(b.logs(), s); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the bridge's log never showed %q:\n%s", s, b.logs())
		}
	}
}

// restartHub stops the hub and starts it again on the same address and
// log; alice's and bob's connections are dialled again.
func (e *bridgeEnv) restartHub(t *testing.T) {
	t.Helper()
	e.h = e.h.reopen(t)
	e.a, e.b = e.h.as(t, e.alice), e.h.as(t, e.bob)
}
