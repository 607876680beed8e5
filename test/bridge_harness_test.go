package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/relay"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

var (
	toolOnce sync.Once
	toolBins = map[string]string{}
	toolErr  error
)

// goTool builds a Go main package once per test run (the scripted ACP agent,
// acp-go-sdk's example agent, the mock model server).
func goTool(t testing.TB, pkg string) string {
	t.Helper()
	toolOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hive-tools-")
		if err != nil {
			toolErr = err
			return
		}
		for name, p := range map[string]string{"acpagent": "./acpagent", "exampleagent": "github.com/coder/acp-go-sdk/example/agent"} {
			out := filepath.Join(dir, name)
			if b, err := exec.Command("go", "build", "-o", out, p).CombinedOutput(); err != nil {
				toolErr = fmt.Errorf("go build %s: %v\n%s", p, err, b)
				return
			}
			toolBins[name] = out
		}
	})
	if toolErr != nil {
		t.Fatal(toolErr)
	}
	return toolBins[pkg]
}

// bridgeEnv is a closed hub with alice (the agent's owner) and bob, a
// private channel "room" holding both and the agent, and a bridge config.
type bridgeEnv struct {
	h          *closedHub
	alice, bob key
	agent      key
	a, b       *raw
	dir        string
	configPath string
	ck         [32]byte // alice <-> agent
}

func newBridgeEnv(t testing.TB, limits ...func(*relay.Config)) *bridgeEnv {
	t.Helper()
	goTool(t, "acpagent") // built before any connection to the hub is open: a slow build on a busy machine outlasted the hub's 90 s of silence
	h, tm := startTeam(t, limits...)
	e := &bridgeEnv{h: h, alice: tm.alice, bob: tm.bob, agent: tm.agent, a: tm.a, b: tm.b, dir: t.TempDir()}
	keys, _ := identity.KeysFromSecretHex(tm.agent.sk)
	if err := identity.SaveKeyFile(filepath.Join(e.dir, "agent.key"), keys, identity.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(e.dir, "agent.tag"), []byte(identity.TagJSON(tm.tag)+"\n"), 0o600)
	e.channel(t, "room", "private", tm.bob)
	e.ck, _ = nip44.GenerateConversationKey(tm.agent.pk, tm.alice.sk)
	return e
}

// channel creates a channel owned by alice with the agent and members in it.
func (e *bridgeEnv) channel(t testing.TB, id, visibility string, members ...key) {
	t.Helper()
	createChannel(t, e.a, e.alice, id, visibility)
	for _, m := range append(members, e.agent) {
		e.a.must(e.alice.sign(t, 9000, "", nostr.Tag{"h", id}, nostr.Tag{"p", m.pk}))
	}
}

// config writes the bridge config; agentLines are extra keys of [[agent]].
func (e *bridgeEnv) config(t testing.TB, command []string, agentLines ...string) {
	t.Helper()
	cmd, _ := json.Marshal(command)
	cfg := fmt.Sprintf("hub = %q\nstate_dir = \"state\"\n\n[[agent]]\nname = \"helper\"\nkey = \"agent.key\"\nattestation = \"agent.tag\"\ncommand = %s\ncwd = \".\"\n%s\n",
		e.h.URL, cmd, strings.Join(agentLines, "\n"))
	e.configPath = filepath.Join(e.dir, "bridge.toml")
	if err := os.WriteFile(e.configPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// workDir makes DIR/work and sets it as the agent's cwd in the config.
func (e *bridgeEnv) workDir(t testing.TB) string {
	t.Helper()
	work := filepath.Join(e.dir, "work")
	os.MkdirAll(work, 0o755)
	cfg, _ := os.ReadFile(e.configPath)
	os.WriteFile(e.configPath, []byte(strings.Replace(string(cfg), `cwd = "."`, fmt.Sprintf("cwd = %q", work), 1)), 0o600)
	return work
}

// scripted configures the scripted agent.
func (e *bridgeEnv) scripted(t testing.TB, agentLines ...string) {
	t.Helper()
	lines := append([]string{fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_STEERING = \"1\" }", filepath.Join(e.dir, "sessions"))}, agentLines...)
	e.config(t, []string{goTool(t, "acpagent")}, lines...)
}

// startScripted is a bridge environment whose bridge runs the scripted
// agent (configured with agentLines) and follows the channel.
func startScripted(t testing.TB, agentLines ...string) (*bridgeEnv, *bridgeProc) {
	t.Helper()
	e := newBridgeEnv(t)
	e.scripted(t, agentLines...)
	return e, e.start(t)
}

// bridgeProc is a running `hive bridge`.
type bridgeProc struct{ *logged }

// start runs the bridge and waits until it follows the channel.
func (e *bridgeEnv) start(t testing.TB) *bridgeProc {
	t.Helper()
	return e.startEnv(t, nil)
}

// startEnv is start with env added to the bridge's environment.
func (e *bridgeEnv) startEnv(t testing.TB, env []string) *bridgeProc {
	t.Helper()
	cmd := exec.Command(binary(t), "bridge", "--config", e.configPath, "-v")
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), env...)
	b := &bridgeProc{startLogged(t, cmd, "member of channel", 30*time.Second)}
	t.Cleanup(func() { b.stop() })
	// No wait for the mention subscription: it reads from the bridge's
	// cursor (its first start, less catchUpSlack), so a mention posted from
	// now on reaches it stored or live.
	return b
}

// stop sends SIGTERM and waits (the bridge stops its agents first).
func (b *bridgeProc) stop() {
	if b.cmd.ProcessState != nil {
		return
	}
	b.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
}

func (b *bridgeProc) kill9() {
	b.cmd.Process.Signal(os.Kill)
	b.cmd.Wait()
}

// mention posts a kind 9 in channel from k that p-tags the agent.
func (e *bridgeEnv) mention(t testing.TB, r *raw, k key, channel, text string, extra ...nostr.Tag) *nostr.Event {
	t.Helper()
	tags := append([]nostr.Tag{{"h", channel}, {"p", e.agent.pk}}, extra...)
	return r.must(k.sign(t, 9, text, tags...))
}

// settled shows that the bridge has handled everything posted in channel
// so far: a probe mention posted now is answered, and the channel's turns
// run in order, so an answer to anything earlier (a duplicate included)
// would have come before the probe's. It returns the probe's reply (one
// more agent message in channel).
func (e *bridgeEnv) settled(t testing.TB, channel string, b *bridgeProc) *nostr.Event {
	t.Helper()
	probe := e.mention(t, e.a, e.alice, channel, "settle probe")
	return e.waitReply(t, channel, probe.ID, 60*time.Second, b)
}

// ask has alice mention the agent in room and waits within for the answer;
// it returns the mention and the reply.
func (e *bridgeEnv) ask(t testing.TB, b *bridgeProc, text string, within time.Duration) (mention, reply *nostr.Event) {
	t.Helper()
	mention = e.mention(t, e.a, e.alice, "room", text)
	return mention, e.waitReply(t, "room", mention.ID, within, b)
}

// mentionAt is mention dated at (a second after what it must follow).
func (e *bridgeEnv) mentionAt(t testing.TB, r *raw, k key, at nostr.Timestamp, channel, text string, extra ...nostr.Tag) *nostr.Event {
	t.Helper()
	tags := append([]nostr.Tag{{"h", channel}, {"p", e.agent.pk}}, extra...)
	return r.must(k.signAt(t, at, 9, text, tags...))
}

// replies returns the agent's messages in channel.
func (e *bridgeEnv) replies(t testing.TB, channel string) []*nostr.Event {
	t.Helper()
	id := fmt.Sprintf("r%d", time.Now().UnixNano())
	evs, closed := e.a.req(id, nostr.Filter{Kinds: []int{9}, Authors: []string{e.agent.pk}, Tags: nostr.TagMap{"h": {channel}}})
	if closed != "" {
		t.Fatalf("reading replies: %s", closed)
	}
	e.a.send([]any{"CLOSE", id})
	return evs
}

// waitReply waits until the agent has replied to mention id.
func (e *bridgeEnv) waitReply(t testing.TB, channel, id string, within time.Duration, b *bridgeProc) *nostr.Event {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, ev := range e.replies(t, channel) {
			for _, tg := range ev.Tags {
				if len(tg) >= 4 && tg[0] == "e" && tg[1] == id && tg[3] == "reply" {
					return ev
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no reply to %s within %v; bridge log:\n%s", id, within, b.logs())
	return nil
}

// replyTags checks a reply's threading: h = channel, NIP-10 e tags naming
// root and the mention, p = the asker.
func replyTags(t testing.TB, reply *nostr.Event, channel, root, mention, asker string) {
	t.Helper()
	want := map[string]bool{"h " + channel: false, "e " + root + " root": false, "e " + mention + " reply": false, "p " + asker: false}
	for _, tg := range reply.Tags {
		k := strings.Join(tg, " ")
		if len(tg) >= 4 && tg[0] == "e" {
			k = tg[0] + " " + tg[1] + " " + tg[3]
		}
		if _, ok := want[k]; ok {
			want[k] = true
		}
	}
	for k, ok := range want {
		if !ok {
			t.Errorf("reply lacks tag %q: %v", k, reply.Tags)
		}
	}
}

// repliesTo counts the agent's replies that name id as their reply target.
func (e *bridgeEnv) repliesTo(t testing.TB, channel, id string) int {
	n := 0
	for _, ev := range e.replies(t, channel) {
		for _, tg := range ev.Tags {
			if len(tg) >= 4 && tg[0] == "e" && tg[1] == id && tg[3] == "reply" {
				n++
			}
		}
	}
	return n
}

// frames subscribes as alice to the agent's observer frames and decrypts them.
type frameWatch struct {
	t      testing.TB
	r      *raw
	ck     [32]byte
	frames chan observer.Frame
	err    error // why the subscription's connection ended
}

func (e *bridgeEnv) watchFrames(t testing.TB) *frameWatch {
	t.Helper()
	return e.watchFramesAs(t, e.alice, e.ck)
}

// watchFramesAs subscribes as who (authenticating with extra tags) to the
// frames addressed to who, opened with ck.
func (e *bridgeEnv) watchFramesAs(t testing.TB, who key, ck [32]byte, extra ...nostr.Tag) *frameWatch {
	t.Helper()
	r := e.h.as(t, who, extra...)
	fw := &frameWatch{t: t, r: r, ck: ck, frames: make(chan observer.Frame, 4096)}
	r.send([]any{"REQ", "frames", nostr.Filter{Kinds: []int{24200}, Tags: nostr.TagMap{"p": {who.pk}}}})
	go func() {
		r.ws.SetReadDeadline(time.Time{}) // auth left a deadline behind
		for {
			_, b, err := r.ws.ReadMessage()
			if err != nil {
				fw.err = err
				close(fw.frames)
				return
			}
			var arr []json.RawMessage
			if json.Unmarshal(b, &arr) != nil || len(arr) < 3 || str(arr[0]) != "EVENT" {
				continue
			}
			ev := &nostr.Event{}
			json.Unmarshal(arr[2], ev)
			var f observer.Frame
			if err := observer.OpenFrame(ev, fw.ck, &f); err == nil {
				fw.frames <- f
			}
		}
	}()
	return fw
}

// until returns frames until one satisfies pred (failing after d).
func (fw *frameWatch) until(d time.Duration, pred func(observer.Frame) bool) []observer.Frame {
	fw.t.Helper()
	var got []observer.Frame
	timeout := time.After(d)
	for {
		select {
		case f, ok := <-fw.frames:
			if !ok {
				fw.t.Fatalf("frame watch closed: %v", fw.err)
			}
			got = append(got, f)
			if pred(f) {
				return got
			}
		case <-timeout:
			fw.t.Fatalf("no matching frame within %v (%d frames seen)", d, len(got))
		}
	}
}

// method is the JSON-RPC method of a frame's message ("" for responses).
func method(f observer.Frame) string {
	var m struct{ Method string }
	json.Unmarshal(f.Msg, &m)
	return m.Method
}

// control sends an owner control frame to the agent.
func (e *bridgeEnv) control(t testing.TB, c observer.Control) {
	t.Helper()
	e.a.must(e.controlFrom(t, e.alice, c))
}

// controlFrom seals and signs a control frame from k to the agent.
func (e *bridgeEnv) controlFrom(t testing.TB, k key, c observer.Control) *nostr.Event {
	t.Helper()
	ck, err := nip44.GenerateConversationKey(e.agent.pk, k.sk)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := observer.SealFrame(c, ck, e.agent.pk)
	if err != nil {
		t.Fatal(err)
	}
	ev.Sign(k.sk)
	return ev
}

// aliceKeyFile writes alice's key to a key file for the CLI and returns its path.
func (e *bridgeEnv) aliceKeyFile(t testing.TB) string {
	t.Helper()
	keys, _ := identity.KeysFromSecretHex(e.alice.sk)
	path := filepath.Join(e.dir, "alice.key")
	if err := identity.SaveKeyFile(path, keys, identity.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitStateTurn waits until the bridge's state file holds turn in flight.
func (e *bridgeEnv) waitStateTurn(t testing.TB, turn string, b *bridgeProc) {
	t.Helper()
	path := filepath.Join(e.dir, "state", "helper", "state.json")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var st struct {
			Turns map[string]json.RawMessage `json:"turns"`
		}
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &st) == nil && st.Turns[turn] != nil {
			return
		}
	}
	t.Fatalf("the state never recorded turn %s; bridge log:\n%s", turn, b.logs())
}
