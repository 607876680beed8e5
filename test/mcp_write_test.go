package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// mcpSession is a `hive mcp` process (the real binary, as the agent key)
// with an MCP client on its stdio.
type mcpSession struct {
	t  *testing.T
	cs *mcp.ClientSession
}

// startMCP runs `hive mcp --write` bound to room and the turn file, with
// extra flags.
func (e *bridgeEnv) startMCP(t *testing.T, turnFile string, extra ...string) *mcpSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	args := append([]string{"mcp", "--hub", e.h.URL, "--key", filepath.Join(e.dir, "agent.key"), "--tag", filepath.Join(e.dir, "agent.tag"),
		"--channel", "room", "--turn", turnFile, "--write"}, extra...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: exec.Command(binary(t), args...)}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel() })
	return &mcpSession{t, cs}
}

// call calls a tool and returns its text and whether it is a tool error.
func (s *mcpSession) call(name string, args map[string]any) (string, bool) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || len(res.Content) == 0 {
		s.t.Fatalf("%s: %v %+v", name, err, res)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// writeTurnFile writes the turn file a bridge would for a turn answering
// mention in room.
func writeTurnFile(t *testing.T, path, turn string, mention *nostr.Event) {
	t.Helper()
	b := fmt.Sprintf(`{"turn":%q,"channel":"room","thread":%q,"reply_to":%q,"hops":1}`, turn, mention.ID, mention.ID)
	if err := os.WriteFile(path, []byte(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 30 item 6: the 10 posts of a turn are the turn's, not one hive
// mcp process's: a second `hive mcp` on the same turn gets the posts the
// first left (4 of 10), and the next is refused; a new turn starts at 0.
func TestHiveMCPPostBudgetIsTheTurns(t *testing.T) {
	e := newBridgeEnv(t)
	m := e.mention(t, e.a, e.alice, "room", "asked")
	turn := filepath.Join(e.dir, "turn-room.json")
	writeTurnFile(t, turn, m.ID, m)
	first := e.startMCP(t, turn)
	for i := 0; i < 6; i++ {
		if out, isErr := first.call("post_message", map[string]any{"text": "budget"}); isErr || !strings.HasSuffix(out, " in the current thread") {
			t.Fatalf("post %d: %q", i+1, out)
		}
	}
	first.cs.Close()
	second := e.startMCP(t, turn)
	for i := 6; i < 10; i++ {
		if out, isErr := second.call("post_message", map[string]any{"text": "budget"}); isErr {
			t.Fatalf("post %d from a second hive mcp on the turn: %q", i+1, out)
		}
	}
	want := "post_message: at most 10 posts in one turn: this turn has made 10; put the rest in your answer"
	if out, isErr := second.call("post_message", map[string]any{"text": "budget"}); !isErr || out != want {
		t.Fatalf("the 11th post of the turn: %q (error %v), want %q", out, isErr, want)
	}
	if out, isErr := second.call("react", map[string]any{"event_id": m.ID, "emoji": "👍"}); !isErr || out != "react: at most 10 posts in one turn: this turn has made 10; put the rest in your answer" {
		t.Fatalf("a reaction past the turn's budget: %q", out)
	}
	n := 0
	for _, ev := range e.replies(t, "room") {
		if ev.Content == "budget" {
			n++
		}
	}
	if n != 10 {
		t.Fatalf("%d posts of the turn on the hub, want 10", n)
	}
	writeTurnFile(t, turn, "next-turn", m)
	if out, isErr := second.call("post_message", map[string]any{"text": "next turn"}); isErr {
		t.Fatalf("the next turn's first post: %q", out)
	}
}

// Issue 30 item 6: the write tools post only in the turn's channel: a
// post at the top level of another channel the agent is a member of, a
// reply in a thread there and a reaction there are refused with the rule
// and the config key that widens it; with hive_tools_write_channels
// (--write-channel) listing that channel they go through.
func TestHiveMCPWritesOnlyInTheTurnsChannel(t *testing.T) {
	e := newBridgeEnv(t)
	e.channel(t, "side", "private", e.bob)
	m := e.mention(t, e.a, e.alice, "room", "asked in room")
	other := e.b.must(e.bob.sign(t, 9, "a message in side", nostr.Tag{"h", "side"}))
	turn := filepath.Join(e.dir, "turn-room.json")
	writeTurnFile(t, turn, m.ID, m)
	s := e.startMCP(t, turn)
	rule := "channel side is not this turn's channel (room): the hive tools write only in the channel the agent was asked in, unless its bridge config lists the channel in hive_tools_write_channels"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"post_message", map[string]any{"text": "leak", "channel": "side"}},
		{"post_message", map[string]any{"text": "leak", "thread": other.ID}},
		{"react", map[string]any{"event_id": other.ID, "emoji": "👍"}},
	} {
		if out, isErr := s.call(c.tool, c.args); !isErr || out != c.tool+": "+rule {
			t.Fatalf("%s %v: %q (error %v), want the rule", c.tool, c.args, out, isErr)
		}
	}
	if out, isErr := s.call("post_message", map[string]any{"text": "in room", "top_level": true}); isErr {
		t.Fatalf("a post in the turn's channel: %q", out)
	}
	if evs := e.replies(t, "side"); len(evs) != 0 {
		t.Fatalf("the agent posted in side: %q", evs[0].Content)
	}
	wide := e.startMCP(t, turn, "--write-channel", "side")
	if out, isErr := wide.call("post_message", map[string]any{"text": "allowed", "channel": "side"}); isErr || !strings.HasPrefix(out, "posted event ") {
		t.Fatalf("a post in a channel of hive_tools_write_channels: %q", out)
	}
	if out, isErr := wide.call("react", map[string]any{"event_id": other.ID, "emoji": "👍"}); isErr {
		t.Fatalf("a reaction in a channel of hive_tools_write_channels: %q", out)
	}
}

// hive bridge hands hive_tools_write_channels to every session's hive mcp
// (--write-channel), and refuses it without hive_tools_write.
func TestBridgePassesWriteChannels(t *testing.T) {
	e := newBridgeEnv(t)
	e.scripted(t, `hive_tools_write = true`, `hive_tools_write_channels = ["side"]`)
	fw := e.watchFrames(t)
	b := e.start(t)
	e.ask(t, b, "hello", 20*time.Second)
	f := fw.until(10*time.Second, func(f observer.Frame) bool { return method(f) == "session/new" })
	if msg := string(f[len(f)-1].Msg); !strings.Contains(msg, `"--write","--write-channel","side"`) {
		t.Fatalf("session/new does not hand hive mcp --write-channel side: %s", msg)
	}
	e.scripted(t, `hive_tools_write_channels = ["side"]`)
	out, code := hiveExit(t, "bridge", "--config", e.configPath)
	if code == 0 || !strings.Contains(out, `agent "helper": hive_tools_write_channels needs hive_tools_write = true (the write tools are off)`) {
		t.Fatalf("hive bridge with write channels but no write tools: exit %d\n%s", code, out)
	}
}
