package agentbridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bridge.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const minimalAgent = `
[[agent]]
name = "claude"
key = "claude.key"
attestation = "claude.tag"
command = ["claude-agent-acp"]
`

func TestConfigDefaultsAndPaths(t *testing.T) {
	p := writeConfig(t, `hub = "ws://127.0.0.1:7447"`+minimalAgent)
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agents[0]
	if a.Processes != 1 || a.Permissions != PermAsk || !a.answer.Owner || a.permTimeout.Minutes() != 5 || a.turnTimeout.Minutes() != 30 || a.idleTTL.Minutes() != 10 {
		t.Fatalf("defaults: %+v", a)
	}
	if a.Key != filepath.Join(filepath.Dir(p), "claude.key") || a.Cwd != filepath.Dir(p) || c.StateDir != "bridge-state" {
		t.Fatalf("paths: key %s cwd %s state %s", a.Key, a.Cwd, c.StateDir)
	}
}

func TestConfigErrorsNameTheFix(t *testing.T) {
	cases := map[string]string{
		minimalAgent:     "hub is required",
		`hub = "ws://x"`: "no [[agent]]",
		`hub = "ws://x"` + minimalAgent + "processes = 33\n":                                      "1 to 32",
		`hub = "ws://x"` + minimalAgent + `permissions = "maybe"` + "\n":                          `use "ask", "allow" or "deny"`,
		`hub = "ws://x"` + minimalAgent + `answer = "everyone"` + "\n":                            `"owner", "members"`,
		`hub = "ws://x"` + minimalAgent + `answer = ["npub1nope"]` + "\n":                         "answer:",
		`hub = "ws://x"` + minimalAgent + `turn_timeout = "soon"` + "\n":                          "turn_timeout",
		`hub = "ws://x"` + minimalAgent + `idle_timeout = "2h"` + "\n":                            "longer than turn_timeout",
		`hub = "ws://x"` + minimalAgent + `colour = "blue"` + "\n":                                `unknown key "agent.colour"`,
		`hub = "ws://x"` + minimalAgent + minimalAgent:                                            "defined twice",
		`hub = "ws://x"` + minimalAgent + `env = { HIVE_PASSPHRASE = "x" }` + "\n":                "env sets HIVE_PASSPHRASE: the agent must never get the passphrase of hive's key files; remove it",
		`hub = "ws://x"` + strings.Replace(minimalAgent, `command = ["claude-agent-acp"]`, "", 1): "command is required",
	}
	for body, want := range cases {
		_, err := LoadConfig(writeConfig(t, body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %q: error %v, want it to mention %q", body, err, want)
		}
	}
}

func TestConfigAnswerList(t *testing.T) {
	pk := strings.Repeat("ab", 32)
	c, err := LoadConfig(writeConfig(t, `hub = "ws://x"`+minimalAgent+`answer = ["owner", "`+pk+`"]`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Agents[0].answer; !a.Owner || a.Members || !a.Keys[pk] {
		t.Fatalf("answer %+v", a)
	}
}

func TestAgentEnvAllowList(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "HIVE_PASSPHRASE=secret", "HIVE_HOME=/x", "ANTHROPIC_API_KEY=bridge", "NOEQUALS", "TERM=dumb"}
	got := strings.Join(AgentEnv(parent, map[string]string{"ANTHROPIC_API_KEY": "cfg", "TERM": "xterm"}), " ")
	if want := "ANTHROPIC_API_KEY=cfg HOME=/h LC_ALL=C PATH=/bin TERM=xterm"; got != want {
		t.Fatalf("agent env %q, want %q", got, want)
	}
}
