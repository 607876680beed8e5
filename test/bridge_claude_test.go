package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/test/mockmodel"
)

// claudeBridge configures the real claude-agent-acp against the mock
// Anthropic API (answer text, shell command), with IS_SANDBOX cleared
// unless extraEnv sets it; agentLines are extra [[agent]] keys.
func claudeBridge(t *testing.T, text string, extraEnv string, agentLines ...string) (*bridgeEnv, *mockmodel.Anthropic) {
	t.Helper()
	bin := adapterBin(t, "claude-agent-acp")
	mock, err := mockmodel.StartAnthropic(text, "echo hi > out.txt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mock.Close)
	e := newBridgeEnv(t)
	home := filepath.Join(e.dir, "home")
	os.MkdirAll(home, 0o700)
	if extraEnv == "" {
		extraEnv = `IS_SANDBOX = ""`
	}
	env := fmt.Sprintf(`env = { HOME = %q, ANTHROPIC_API_KEY = "sk-ant-mock", ANTHROPIC_BASE_URL = %q, DISABLE_TELEMETRY = "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1", DISABLE_AUTOUPDATER = "1", %s }`,
		home, mock.URL, extraEnv)
	e.config(t, []string{bin}, append([]string{env, `turn_timeout = "3m"`, `idle_timeout = "2m"`}, agentLines...)...)
	e.workDir(t)
	return e, mock
}

// A turn of the real claude-agent-acp cancelled by the owner's control
// frame, then more turns: each reply holds only its own turn's text (the
// cancelled turn's text never moves into a later reply, and no later turn
// ends without its answer).
func TestBridgeClaudeCancelThenNextTurns(t *testing.T) {
	e, mock := claudeBridge(t, "unused", "")
	b := e.start(t)
	fw := e.watchFrames(t)
	m0 := e.mention(t, e.a, e.alice, "room", "[[slow:60s]] [[say:first-answer-cancelled]]")
	var session string
	fw.until(90*time.Second, func(f observer.Frame) bool {
		session = f.Session
		return f.Turn == m0.ID && strings.Contains(string(f.Msg), "agent_message_chunk")
	})
	e.control(t, observer.Control{V: 1, Type: observer.CtlCancel, Session: session})
	r0 := e.waitReply(t, "room", m0.ID, 60*time.Second, b)
	if !strings.Contains(r0.Content, "(cancelled by the owner)") || strings.Contains(r0.Content, "first-answer-cancelled") {
		t.Fatalf("the cancelled turn's reply %q", r0.Content)
	}
	for _, word := range []string{"second", "third", "fourth"} {
		m := e.mention(t, e.a, e.alice, "room", "[[say:"+word+"]]")
		if r := e.waitReply(t, "room", m.ID, 90*time.Second, b); r.Content != word {
			t.Fatalf("reply %q to the mention answered %q; mock log %v; bridge log:\n%s", r.Content, word, mock.Log(), b.logs())
		}
	}
}

// Issue 23 item 9 with the real claude-agent-acp and the README's mode and
// permissions: kill -9 of the bridge with a session open, a mention while
// it is down, a restart: the caught-up mention is answered on the session
// resumed with session/load, and so is each new mention sent 0.2, 1 and 2
// seconds after the previous reply.
func TestBridgeClaudeKill9ThenLiveMentions(t *testing.T) {
	e, mock := claudeBridge(t, "unused", "", `mode = "default"`, `permissions = "ask"`)
	b := e.start(t)
	m0 := e.mention(t, e.a, e.alice, "room", "[[say:before-the-kill]]")
	if r := e.waitReply(t, "room", m0.ID, 90*time.Second, b); r.Content != "before-the-kill" {
		t.Fatalf("first reply %q", r.Content)
	}
	b.kill9()
	down := e.mention(t, e.a, e.alice, "room", "[[say:caught-up]]")
	b2 := e.start(t)
	if r := e.waitReply(t, "room", down.ID, 90*time.Second, b2); r.Content != "caught-up" {
		t.Fatalf("caught-up reply %q; mock log %v", r.Content, mock.Log())
	}
	if !strings.Contains(b2.logs(), "session resumed") {
		t.Fatalf("the caught-up turn did not resume the session:\n%s", b2.logs())
	}
	for _, after := range []time.Duration{200 * time.Millisecond, time.Second, 2 * time.Second} {
		time.Sleep(after)
		word := "live-" + strings.ReplaceAll(after.String(), ".", "_")
		m := e.mention(t, e.a, e.alice, "room", "[[say:"+word+"]]")
		if r := e.waitReply(t, "room", m.ID, 90*time.Second, b2); r.Content != word {
			t.Fatalf("reply %q to the mention sent %v after the last reply; mock log %v; bridge log:\n%s", r.Content, after, mock.Log(), b2.logs())
		}
	}
}
