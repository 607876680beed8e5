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
