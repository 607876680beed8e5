package test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The agent process gets only the allow-listed part of the bridge's
// environment and its config's env: never HIVE_PASSPHRASE (which decrypts
// the agent's own key file), nor hive's other variables, nor the bridge's
// API keys. The agent here is a real child (a shell that dumps its
// environment, then runs the scripted agent), started through the guard.
func TestBridgeAgentEnvironment(t *testing.T) {
	e := newBridgeEnv(t)
	dump := filepath.Join(e.dir, "agent-env")
	e.config(t, []string{"/bin/sh", "-c", "env > " + dump + " && exec " + goTool(t, "acpagent")},
		`env = { ACPAGENT_DIR = "sessions", FROM_CONFIG = "given", ANTHROPIC_API_KEY = "sk-from-config" }`)
	b := e.startEnv(t, []string{"HIVE_PASSPHRASE=hunter2-passphrase", "HIVE_HOME=/nonexistent/hive-home", "HIVE_PROFILE=alice",
		"ANTHROPIC_API_KEY=sk-bridge-own", "OPENAI_API_KEY=sk-bridge-openai", "AWS_SECRET_ACCESS_KEY=bridge-aws-secret", "LC_ALL=C.UTF-8", "LANG=C.UTF-8", "TERM=xterm"})
	m := e.mention(t, e.a, e.alice, "room", "hello")
	if r := e.waitReply(t, "room", m.ID, 20*time.Second, b); r.Content != "heard 1: hello" {
		t.Fatalf("reply %q", r.Content)
	}
	var raw []byte
	for deadline := time.Now().Add(10 * time.Second); len(raw) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		raw, _ = os.ReadFile(dump)
	}
	env := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "HIVE_") || strings.Contains(v, "hunter2") || strings.Contains(v, "bridge-aws-secret") || strings.Contains(v, "sk-bridge-") {
			t.Errorf("the agent inherited %s", kv)
		}
	}
	for _, want := range []string{"FROM_CONFIG=given", "ANTHROPIC_API_KEY=sk-from-config", "LC_ALL=C.UTF-8", "LANG=C.UTF-8", "TERM=xterm",
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")} {
		if !slices.Contains(env, want) {
			t.Errorf("the agent's environment lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("the agent's environment:\n%s", raw)
	}
}
