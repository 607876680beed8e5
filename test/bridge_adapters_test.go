package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/agentbridge"
	"github.com/ainb/hive/test/mockmodel"
)

// adapterBin returns an npm-installed adapter from test/adapters. make test
// installs them (npm ci) and sets HIVE_REQUIRE_ADAPTERS=1, so there a
// missing adapter fails; a bare `go test` without node skips.
func adapterBin(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("HIVE_REQUIRE_ADAPTERS") != "" {
			t.Fatal("node is required for the real ACP adapter tests (install Node.js 20+)")
		}
		t.Skip("node is not installed: skipping the real ACP adapter test")
	}
	bin, _ := filepath.Abs(filepath.Join("adapters", "node_modules", ".bin", name))
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("HIVE_REQUIRE_ADAPTERS") != "" {
			t.Fatalf("%s is not installed: run `cd test/adapters && npm ci`", name)
		}
		t.Skipf("%s is not installed (run `cd test/adapters && npm ci`, or make test)", name)
	}
	return bin
}

// The real claude-agent-acp, its model calls answered by the mock Anthropic
// API: a mention gets the model's text as the reply; a turn where the model
// calls Bash raises a permission request, the owner approves it with a
// control frame, and the command runs.
func TestBridgeClaudeAgentACP(t *testing.T) {
	bin := adapterBin(t, "claude-agent-acp")
	mock, err := mockmodel.StartAnthropic("hello from the mock model", "echo hi > out.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	e := newBridgeEnv(t)
	home := filepath.Join(e.dir, "home")
	os.MkdirAll(home, 0o700)
	e.config(t, []string{bin},
		fmt.Sprintf(`env = { HOME = %q, ANTHROPIC_API_KEY = "sk-mock", ANTHROPIC_BASE_URL = %q, DISABLE_TELEMETRY = "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1", DISABLE_AUTOUPDATER = "1", IS_SANDBOX = "" }`, home, mock.URL),
		`mode = "default"`, `permissions = "ask"`, `permission_timeout = "90s"`, `turn_timeout = "3m"`, `idle_timeout = "2m"`)
	work := e.workDir(t)
	b := e.start(t)
	fw := e.watchFrames(t)

	m := e.mention(t, e.a, e.alice, "room", "say hello")
	r := e.waitReply(t, "room", m.ID, 90*time.Second, b)
	if !strings.Contains(r.Content, "hello from the mock model") {
		t.Fatalf("reply %q; mock log %v; bridge log:\n%s", r.Content, mock.Log(), b.logs())
	}

	m2 := e.mention(t, e.a, e.alice, "room", "please run it [[shell]]")
	session, id, allow := permissionRequest(t, fw)
	if _, err := os.Stat(filepath.Join(work, "out.txt")); err == nil {
		t.Fatal("the command ran before the owner approved it")
	}
	e.control(t, agentbridge.Control{V: 1, Type: agentbridge.CtlPermission, Session: session, Request: id, Option: allow})
	r2 := e.waitReply(t, "room", m2.ID, 90*time.Second, b)
	if !strings.Contains(r2.Content, "the command ran") {
		t.Fatalf("reply %q; mock log %v", r2.Content, mock.Log())
	}
	out, err := os.ReadFile(filepath.Join(work, "out.txt"))
	if err != nil || strings.TrimSpace(string(out)) != "hi" {
		t.Fatalf("out.txt after approval: %q %v", out, err)
	}
}
