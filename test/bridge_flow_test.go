package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// promptLog reads the scripted agent's prompt log: the first line of each
// prompt, in the order the agents received them.
func promptLog(t *testing.T, path string) []string {
	b, _ := os.ReadFile(path)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func waitLog(t *testing.T, path string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if l := promptLog(t, path); len(l) >= n {
			return l
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("fewer than %d prompts logged: %v", n, promptLog(t, path))
	return nil
}

// One process, two channels: mentions that arrive during a turn are batched
// into the channel's next prompt, and the channel whose head waited longest
// goes first.
func TestBridgeBatchingAndFairness(t *testing.T) {
	e := newBridgeEnv(t)
	e.channel(t, "side", "private")
	logPath := filepath.Join(e.dir, "prompts.log")
	e.config(t, []string{goTool(t, "acpagent")}, fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_LOG = %q }", filepath.Join(e.dir, "sessions"), logPath), "processes = 1")
	b := e.start(t)

	a1 := e.mention(t, e.a, e.alice, "room", "[[slow:1500ms]] a1")
	waitLog(t, logPath, 1)
	b1 := e.mention(t, e.a, e.alice, "side", "b1")
	a2 := e.mention(t, e.a, e.alice, "room", "a2")
	_, r3 := e.ask(t, b, "a3", 20*time.Second)
	if r3.Content != "heard 2: a2 | a3" {
		t.Fatalf("batched reply %q", r3.Content)
	}
	e.waitReply(t, "room", a1.ID, 5*time.Second, b)
	e.waitReply(t, "side", b1.ID, 5*time.Second, b)
	log := promptLog(t, logPath)
	if len(log) != 3 || !strings.Contains(log[0], a1.ID) || !strings.Contains(log[1], b1.ID) || !strings.Contains(log[2], a2.ID) {
		t.Fatalf("prompt order %v, want a1, b1, then a2+a3", log)
	}
	if n := len(e.replies(t, "room")); n != 2 {
		t.Fatalf("%d replies in room, want 2 (a1, and one for the a2+a3 batch)", n)
	}
}

// Two processes: a slow turn in one channel does not hold up another.
func TestBridgeChannelsInParallel(t *testing.T) {
	e := newBridgeEnv(t)
	e.channel(t, "side", "private")
	e.scripted(t, "processes = 2")
	b := e.start(t)
	slow := e.mention(t, e.a, e.alice, "room", "[[slow:4s]] slow")
	e.waitWorking(t, e.agent.pk, slow.ID, b)
	fast := e.mention(t, e.a, e.alice, "side", "fast")
	e.waitReply(t, "side", fast.ID, 10*time.Second, b)
	if e.repliesTo(t, "room", slow.ID) != 0 {
		t.Fatal("the slow turn finished before the fast one")
	}
	e.waitReply(t, "room", slow.ID, 20*time.Second, b)
}

// Owner control frames: steer into a running turn (_session/steering),
// steer while idle (queued as the next prompt), and cancel.
func TestBridgeSteerAndCancel(t *testing.T) {
	e, b := startScripted(t)
	fw := e.watchFrames(t)

	m := e.mention(t, e.a, e.alice, "room", "[[steerable:15s]] go")
	frames := fw.until(15*time.Second, func(f observer.Frame) bool { return strings.Contains(string(f.Msg), "waiting for steering") })
	session := frames[len(frames)-1].Session
	e.control(t, observer.Control{V: 1, Type: observer.CtlSteer, Session: session, Text: "turn left"})
	if r := e.waitReply(t, "room", m.ID, 20*time.Second, b); !strings.HasSuffix(r.Content, "steered: turn left") {
		t.Fatalf("steered reply %q", r.Content)
	}
	// idle: the steer becomes the next prompt, answered to the owner
	e.control(t, observer.Control{V: 1, Type: observer.CtlSteer, Session: session, Text: "turn right"})
	deadline := time.Now().Add(15 * time.Second)
	for found := false; !found; {
		if time.Now().After(deadline) {
			t.Fatalf("idle steer not answered; log:\n%s", b.logs())
		}
		for _, ev := range e.replies(t, "room") {
			found = found || (ev.Content == "heard 1: turn right" && ev.Tags.ContainsAny("p", []string{e.alice.pk}))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// cancel a running turn
	c := e.mention(t, e.a, e.alice, "room", "[[slow:30s]] long")
	fw.until(15*time.Second, func(f observer.Frame) bool { return f.Turn == c.ID && method(f) == "session/prompt" })
	e.control(t, observer.Control{V: 1, Type: observer.CtlCancel, Session: session})
	if r := e.waitReply(t, "room", c.ID, 10*time.Second, b); !strings.Contains(r.Content, "cancelled by the owner") {
		t.Fatalf("cancelled reply %q", r.Content)
	}
}

// acp-go-sdk's own example agent, an independent implementation: its turn
// (text, tool calls, a permission request allowed by policy) is answered.
func TestBridgeSDKExampleAgent(t *testing.T) {
	e := newBridgeEnv(t)
	e.config(t, []string{goTool(t, "exampleagent")}, `permissions = "allow"`)
	b := e.start(t)
	_, r := e.ask(t, b, "hello example", 30*time.Second)
	if !strings.Contains(r.Content, "I'll help you with that") || !strings.Contains(r.Content, "successfully updated") {
		t.Fatalf("example agent reply %q", r.Content)
	}
}

// A DM with the agent: every message is a mention.
func TestBridgeDirectMessage(t *testing.T) {
	e := newBridgeEnv(t)
	e.a.must(e.alice.sign(t, 9007, "", nostr.Tag{"h", "dm1"}, nostr.Tag{"type", "dm"}, nostr.Tag{"p", e.agent.pk}))
	e.scripted(t)
	b := e.start(t)
	m := e.a.must(e.alice.sign(t, 9, "no tag needed", nostr.Tag{"h", "dm1"}))
	if r := e.waitReply(t, "dm1", m.ID, 20*time.Second, b); r.Content != "heard 1: no tag needed" {
		t.Fatalf("dm reply %q", r.Content)
	}
}

// `hive agent watch` in line mode (stdout is a pipe): the owner, and a paired
// device of the owner with its own key, see the prompt, the permission
// request with its id, the text and the stop reason.
func TestAgentWatchLines(t *testing.T) {
	for _, who := range []string{"owner", "device"} {
		t.Run(who, func(t *testing.T) { agentWatchLines(t, who) })
	}
}

func agentWatchLines(t *testing.T, who string) {
	e, b := startScripted(t, `permissions = "allow"`)
	sk, extra, watcher := e.alice.sk, []string{}, e.alice.pk
	if who == "device" {
		d := e.pairDevice(t, e.alice)
		sk, extra, watcher = d.sk, []string{"--auth-tag", identity.TagJSON(d.tag)}, d.pk
	}
	arrived := e.watchControls(t, watcher)
	lines, stderr := e.agentWatch(t, who, sk, extra...)
	arrived() // the watch's frames subscription is on the wire
	if who == "device" {
		e.waitLog(t, b, " device="+watcher) // its lease reached the bridge
	}
	m, _ := e.ask(t, b, "watch me [[tool]] [[permission]]", 20*time.Second)
	// the client may get frames out of order: look for each line
	want := map[string]bool{"prompt: [mention by": true, "tool: read a file [completed]": true, "permission: run a shell command (request": true,
		"answered: allow": true, "text: ": true, "stop: end_turn": true}
	var got []string
	deadline := time.After(15 * time.Second)
	for len(want) > 0 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("watch exited (%s); lines so far:\n%s", stderr, strings.Join(got, "\n"))
			}
			got = append(got, l)
			for w := range want {
				if strings.Contains(l, w) && strings.Contains(l, "room "+m.ID[:8]) {
					delete(want, w)
				}
			}
		case <-deadline:
			t.Fatalf("watch lines lack %v:\n%s", want, strings.Join(got, "\n"))
		}
	}
}

// Startup errors name the fix and map to the CLI's exit codes.
func TestBridgeStartupErrors(t *testing.T) {
	e := newBridgeEnv(t)
	run := func(wantCode int, wantText string) {
		t.Helper()
		cmd := exec.Command(binary(t), "bridge", "--config", e.configPath)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != wantCode || !strings.Contains(string(out), wantText) {
			t.Fatalf("exit %d, want %d with %q:\n%s", code, wantCode, wantText, out)
		}
	}
	agent := goTool(t, "acpagent")
	e.config(t, []string{"no-such-acp-agent"})
	run(1, `command "no-such-acp-agent" not found`)
	e.config(t, []string{agent}, `processes = 40`)
	run(1, "processes = 40: must be 1 to 32")
	os.Rename(filepath.Join(e.dir, "agent.key"), filepath.Join(e.dir, "agent.key.bak"))
	e.config(t, []string{agent})
	run(1, "hive key new")
	os.Rename(filepath.Join(e.dir, "agent.key.bak"), filepath.Join(e.dir, "agent.key"))
	// an attestation for another key
	other := newKey(t)
	os.WriteFile(filepath.Join(e.dir, "agent.tag"), []byte(identity.TagJSON(attest(t, e.alice, other, time.Hour))), 0o600)
	run(1, "does not verify for this agent")
	// expired
	now := time.Now().Unix()
	tag, _ := identity.Attest(e.alice.sk, e.agent.pk, identity.Conditions{}.WithNotBefore(now-7200).WithExpiry(now-3600))
	os.WriteFile(filepath.Join(e.dir, "agent.tag"), []byte(identity.TagJSON(tag)), 0o600)
	run(1, "is not valid now")
	// an owner who is not a member: the hub refuses AUTH
	stranger := newKey(t)
	os.WriteFile(filepath.Join(e.dir, "agent.tag"), []byte(identity.TagJSON(attest(t, stranger, e.agent, time.Hour))), 0o600)
	run(3, "refused AUTH")
	// the hub is down
	os.WriteFile(filepath.Join(e.dir, "agent.tag"), []byte(identity.TagJSON(attest(t, e.alice, e.agent, time.Hour))), 0o600)
	cfg, _ := os.ReadFile(e.configPath)
	os.WriteFile(e.configPath, []byte(strings.Replace(string(cfg), e.h.URL, "ws://"+freeAddr(t), 1)), 0o600)
	run(2, "unreachable")
}

// Issue 11 item 4: a batch gets one reply (under its newest mention) that
// names every other mention and p-tags every asker; a mention posted in
// another thread also gets a pointer to that reply in its own thread.
func TestBridgeBatchSpansThreads(t *testing.T) {
	e := newBridgeEnv(t)
	logPath := filepath.Join(e.dir, "prompts.log")
	e.config(t, []string{goTool(t, "acpagent")}, fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_LOG = %q }", filepath.Join(e.dir, "sessions"), logPath), `answer = "members"`)
	b := e.start(t)
	x := e.a.must(e.alice.sign(t, 9, "a thread", nostr.Tag{"h", "room"}))

	a1 := e.mention(t, e.a, e.alice, "room", "[[slow:1500ms]] a1")
	waitLog(t, logPath, 1)
	b2 := e.mention(t, e.b, e.bob, "room", "b2")
	a3 := e.mention(t, e.a, e.alice, "room", "a3", nostr.Tag{"e", x.ID, "", "root"})
	a4 := e.mention(t, e.a, e.alice, "room", "a4")
	e.waitReply(t, "room", a1.ID, 20*time.Second, b)
	reply := e.waitReply(t, "room", a4.ID, 20*time.Second, b)
	if reply.Content != "heard 3: b2 | a3 | a4" {
		t.Fatalf("batched reply %q", reply.Content)
	}
	for _, want := range []nostr.Tag{{"e", a4.ID, "", "root"}, {"q", b2.ID}, {"q", a3.ID}, {"p", e.bob.pk}, {"p", e.alice.pk}} {
		if !slices.ContainsFunc(reply.Tags, func(tg nostr.Tag) bool { return slices.Equal(tg, want) }) {
			t.Errorf("the reply lacks %v: %v", want, reply.Tags)
		}
	}
	ptr := e.waitReply(t, "room", a3.ID, 10*time.Second, b)
	for _, want := range []nostr.Tag{{"e", x.ID, "", "root"}, {"q", reply.ID}, {"p", e.alice.pk}} {
		if !slices.ContainsFunc(ptr.Tags, func(tg nostr.Tag) bool { return slices.Equal(tg, want) }) {
			t.Errorf("the pointer lacks %v: %v", want, ptr.Tags)
		}
	}
	if !strings.Contains(ptr.Content, "nostr:nevent1") {
		t.Errorf("pointer content %q", ptr.Content)
	}
	e.settled(t, "room", b)
	if n := len(e.replies(t, "room")); n != 4 {
		t.Fatalf("%d agent messages in room, want 4 (a1's reply, the batch's reply, the pointer in x's thread, the probe's reply)", n)
	}
	if n := len(promptLog(t, logPath)); n != 3 {
		t.Fatalf("%d prompts, want 3 (a1, the batch, the probe)", n)
	}
}
