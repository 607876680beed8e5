package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claude-agent-acp with IS_SANDBOX=yes fails in session/new ("Query closed
// before response received"): the failure reply says what the agent said,
// the likely cause, and the last lines of its stderr, with the values of its
// config's env redacted (here PROJECT_DIR, whose value is the cwd that the
// adapter prints with the failed request).
func TestBridgeSessionFailureSaysWhy(t *testing.T) {
	e, _ := claudeBridge(t, "unused", `IS_SANDBOX = "yes", PROJECT_DIR = "@WORK@"`)
	work := filepath.Join(e.dir, "work")
	cfg, _ := os.ReadFile(e.configPath)
	os.WriteFile(e.configPath, []byte(strings.Replace(string(cfg), "@WORK@", work, 1)), 0o600)
	b := e.start(t)
	m, r := e.ask(t, b, "hello", 120*time.Second)
	for _, want := range []string{
		"⚠️ the agent could not open a session: Internal error ({\"details\":\"Query closed before response received\"})",
		"Likely cause: IS_SANDBOX is set in the agent's env, and claude-agent-acp fails session/new with it: remove it from env (or set it to \"\").",
		"The agent's stderr ended with:\n```\n",
		"method: 'session/new'",
		"cwd: '[redacted]'",
	} {
		if !strings.Contains(r.Content, want) {
			t.Errorf("the failure reply lacks %q", want)
		}
	}
	if strings.Contains(r.Content, work) {
		t.Errorf("the failure reply shows a value of the config's env: %s", work)
	}
	// the asker sees the failure on the mention too: a failed receipt with the reason
	rs := e.waitReceipt(t, e.agent.pk, m.ID, b)
	if last := rs[len(rs)-1]; !strings.HasPrefix(last, "failed "+r.ID+": the agent could not open a session: Internal error") || strings.Contains(last, work) {
		t.Errorf("the last receipt: %q", last)
	}
	if t.Failed() {
		t.Fatalf("reply:\n%s\nbridge log:\n%s", r.Content, b.logs())
	}
}
