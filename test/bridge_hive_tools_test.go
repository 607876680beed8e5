package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// hiveToolsWorld is a thread of three messages from alice and bob in room,
// a message only at room's top level, and a private channel "secret" of
// alice and bob (not the agent) holding one message.
type hiveToolsWorld struct {
	root, onlyInChannel, secret *nostr.Event
}

func newHiveToolsWorld(t *testing.T, e *bridgeEnv) hiveToolsWorld {
	t.Helper()
	e.a.must(e.alice.sign(t, 0, `{"name":"alice"}`))
	e.b.must(e.bob.sign(t, 0, `{"name":"bob"}`))
	var w hiveToolsWorld
	// room's messages are dated a few seconds back: the mentions come in a
	// later second
	base := nostr.Now() - 10
	w.onlyInChannel = e.b.must(e.bob.signAt(t, base, 9, "only-in-channel: the deploy key rotates on tuesday", nostr.Tag{"h", "room"}, at(50)))
	w.root = e.a.must(e.alice.signAt(t, base, 9, "plan: ship on friday", nostr.Tag{"h", "room"}, at(100)))
	e.b.must(e.bob.signAt(t, base, 9, "friday is too soon", nostr.Tag{"h", "room"}, nostr.Tag{"e", w.root.ID, "", "root"}, at(200)))
	e.a.must(e.alice.signAt(t, base, 9, "let's vote on it", nostr.Tag{"h", "room"}, nostr.Tag{"e", w.root.ID, "", "root"}, at(300)))
	createChannel(t, e.a, e.alice, "secret", "private")
	e.a.must(e.alice.sign(t, 9000, "", nostr.Tag{"h", "secret"}, nostr.Tag{"p", e.bob.pk}))
	w.secret = e.a.must(e.alice.sign(t, 9, "secret: the launch codes are 0000", nostr.Tag{"h", "secret"}))
	return w
}

// The acceptance test of the hive tools with the real claude-agent-acp: the
// prompt holds the thread's three messages with their authors' names; the
// model's read_channel call (allowed by the bridge although permissions =
// "deny") returns a message only in the channel and the reply quotes it;
// the private channel the agent is not in is refused through every tool;
// the agent's key is in no environment of the agent's processes and in no
// observer frame.
func TestBridgeClaudeHiveReadTools(t *testing.T) {
	e, mock := claudeBridge(t, "unused", "", `permissions = "deny"`)
	w := newHiveToolsWorld(t, e)
	fw := e.watchFrames(t)
	b := e.start(t)
	inThread := nostr.Tag{"e", w.root.ID, "", "root"}

	m1 := e.mention(t, e.a, e.alice, "room", `what do you think? [[hive:read_channel:{"limit":50}]]`, inThread)
	r1 := e.waitReply(t, "room", m1.ID, 120*time.Second, b).Content
	prompt := ""
	for _, p := range mock.Prompts() {
		if strings.Contains(p, "what do you think?") {
			prompt = p
		}
	}
	for _, want := range []string{"plan: ship on friday", "friday is too soon", "let's vote on it", "[alice npub1", "[bob npub1", "(the message to answer)"} {
		if !strings.Contains(prompt, want) {
			t.Fatalf("the model's prompt lacks %q:\n%s\nmock log: %v", want, prompt, mock.Log())
		}
	}
	if strings.Contains(prompt, "only-in-channel") {
		t.Fatalf("the channel-only message is in the prompt:\n%s", prompt)
	}
	if !strings.HasPrefix(r1, "tool results: ") || !strings.Contains(r1, "only-in-channel: the deploy key rotates on tuesday") {
		t.Fatalf("the reply does not quote read_channel's result: %q\nmock log: %v\nbridge log:\n%s", r1, mock.Log(), b.logs())
	}

	calls := fmt.Sprintf(`[[hive:read_channel:{"channel":"secret"}]] [[hive:read_thread:{"event_id":%q}]] [[hive:get_event:{"id":%q}]] `+
		`[[hive:list_members:{"channel":"secret"}]] [[hive:search:{"query":"launch"}]] [[hive:search:{"query":"launch","channel":"secret"}]] [[hive:list_channels:{}]]`,
		w.secret.ID, w.secret.ID)
	m2 := e.mention(t, e.a, e.alice, "room", "now the secret channel "+calls, inThread)
	r2 := e.waitReply(t, "room", m2.ID, 120*time.Second, b).Content
	results := strings.Split(strings.TrimPrefix(r2, "tool results: "), " || ")
	if len(results) != 7 || strings.Contains(r2, "launch codes") {
		t.Fatalf("the private channel's message reached the agent, or a tool did not answer: %q", r2)
	}
	noChannel := "no channel \"secret\" that you can see (see `hive channel list`)"
	unreadable := "the hub refused: restricted: event " + w.secret.ID + " is not readable by you"
	for i, want := range []string{"read_channel: " + noChannel, "read_thread: " + unreadable, "get_event: " + unreadable, "list_members: " + noChannel, "", "search: " + noChannel} {
		if want != "" && results[i] != want {
			t.Errorf("tool result %d: got %q, want %q", i, results[i], want)
		}
	}
	if strings.Contains(results[4], w.secret.ID) || strings.Contains(results[6], "secret") || !strings.Contains(results[6], "room (room)") {
		t.Errorf("search or list_channels showed the private channel: %q / %q", results[4], results[6])
	}

	frames := fw.until(60*time.Second, func(f observer.Frame) bool {
		return f.Turn == m2.ID && strings.Contains(string(f.Msg), `"stopReason"`)
	})
	keyNeverShown(t, e, frames)
	asked := 0
	for _, f := range frames {
		if method(f) == "session/request_permission" && strings.Contains(string(f.Msg), "mcp__hive__") {
			asked++
		}
	}
	if asked == 0 { // asked, and allowed by the bridge although permissions = "deny"
		t.Fatal("the adapter asked no permission for the hive tools: the bridge's own allow is untested")
	}
}

// keyNeverShown checks that the agent's secret key is in no observer frame
// and in no process environment this test can read, and that the hive
// tools were handed to the session as the server "hive".
func keyNeverShown(t *testing.T, e *bridgeEnv, frames []observer.Frame) {
	t.Helper()
	nsec, _ := nip19.EncodePrivateKey(e.agent.sk)
	sawServer := false
	for _, f := range frames {
		msg := string(f.Msg)
		if strings.Contains(msg, e.agent.sk) || strings.Contains(msg, nsec) {
			t.Fatalf("an observer frame holds the agent's key: %s", msg)
		}
		sawServer = sawServer || (strings.Contains(msg, `"session/new"`) && strings.Contains(msg, `"name":"hive"`) && strings.Contains(msg, `"mcp"`))
	}
	if !sawServer {
		t.Fatal("no session/new frame handed the session the hive MCP server")
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	read := 0
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		read++
		if strings.Contains(string(env), e.agent.sk) || strings.Contains(string(env), nsec) {
			cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
			t.Fatalf("the environment of %s (%s) holds the agent's key", p, strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	if read == 0 {
		t.Fatal("could read no process environment")
	}
}

// With hive_tools_write = true the real claude-agent-acp's post_message
// lands in the thread it was asked in (with the reply's hops tag), and
// the 11th post of one turn is refused as a tool error.
func TestBridgeClaudeHivePostMessage(t *testing.T) {
	e, mock := claudeBridge(t, "unused", "", `permissions = "allow"`, `hive_tools_write = true`)
	w := newHiveToolsWorld(t, e)
	b := e.start(t)
	m := e.mention(t, e.a, e.alice, "room", `post for me [[hive:post_message*11:{"text":"tool post"}]]`, nostr.Tag{"e", w.root.ID, "", "root"})
	e.waitReply(t, "room", m.ID, 120*time.Second, b) // the first of the tool posts, or the answer
	r := ""
	for deadline := time.Now().Add(120 * time.Second); r == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		for _, ev := range e.replies(t, "room") {
			if strings.HasPrefix(ev.Content, "tool results: ") && ev.Tags.ContainsAny("e", []string{m.ID}) {
				r = ev.Content
			}
		}
	}
	results := strings.Split(strings.TrimPrefix(r, "tool results: "), " || ")
	refusal := "post_message: at most 10 posts in one turn: this turn has made 10; put the rest in your answer"
	posted, refused, ids := 0, 0, map[string]bool{}
	for _, res := range results {
		switch {
		case strings.HasPrefix(res, "posted event ") && strings.HasSuffix(res, " in the current thread"):
			posted++
			ids[strings.Fields(res)[2]] = true
		case strings.HasPrefix(res, refusal): // claude-agent-acp may append a reminder of its own
			refused++
		default:
			t.Errorf("unexpected tool result %q", res)
		}
	}
	if posted != 10 || refused != 1 || len(ids) != 10 {
		t.Fatalf("%d posted, %d refused (want 10, 1): %q\nmock log: %v", posted, refused, r, mock.Log())
	}
	n := 0
	for _, ev := range e.replies(t, "room") {
		if ev.Content != "tool post" {
			continue
		}
		n++
		if !ev.Tags.ContainsAny("e", []string{w.root.ID}) || !ev.Tags.ContainsAny("e", []string{m.ID}) || ev.Tags.GetFirst([]string{"hops", ""}).Value() != "1" {
			t.Fatalf("a tool post is not a reply in the thread with hops 1: %v", ev.Tags)
		}
	}
	if n != 10 {
		t.Fatalf("%d tool posts on the hub, want 10", n)
	}

	// The write tools cannot reach the private channel the agent is not in.
	calls := fmt.Sprintf(`[[hive:post_message:{"channel":"secret","text":"leak"}]] [[hive:post_message:{"thread":%q,"text":"leak"}]] [[hive:react:{"event_id":%q,"emoji":"+"}]]`, w.secret.ID, w.secret.ID)
	m2 := e.mention(t, e.a, e.alice, "room", "now write in secret "+calls, nostr.Tag{"e", w.root.ID, "", "root"})
	r2 := ""
	for deadline := time.Now().Add(120 * time.Second); r2 == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		for _, ev := range e.replies(t, "room") {
			if strings.HasPrefix(ev.Content, "tool results: ") && ev.Tags.ContainsAny("e", []string{m2.ID}) {
				r2 = ev.Content
			}
		}
	}
	unreadable := "the hub refused: restricted: event " + w.secret.ID + " is not readable by you"
	want := "tool results: post_message: no channel \"secret\" that you can see (see `hive channel list`) || post_message: " + unreadable + " || react: " + unreadable
	if r2 != want {
		t.Fatalf("the write tools on the private channel:\n got %q\nwant %q\nmock log: %v", r2, want, mock.Log())
	}
}
