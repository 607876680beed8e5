package test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
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

// procsWithEnv lists the live (not zombie) processes whose environment holds
// the exact entry kv, with their command names.
func procsWithEnv(kv string) map[int]string {
	out := map[int]string{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+kv+"\x00")) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
		out[pid] = strings.TrimSpace(string(comm))
	}
	return out
}

// noProcsLeft fails if a process whose environment holds kv is still alive
// 5 s after the bridge stopped (and kills it, so the test leaks nothing).
func noProcsLeft(t *testing.T, kv string, during map[int]string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for left := procsWithEnv(kv); len(left) > 0; left = procsWithEnv(kv) {
		if time.Now().After(deadline) {
			for pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes left after the bridge stopped: %v (of %v during the run)", left, during)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runAdapter starts the bridge on the configured real adapter (working in
// work) and runs what every real-adapter test runs: a mention gets exactly
// the mock model's text as the one threaded reply; a "[[shell]]" mention
// raises a permission request, the command has not run before the owner
// approves it with a control frame, then it has run and the reply is "the
// command ran"; each mention gets exactly one reply. At least minProcs
// processes hold procEnv in their environment during the run, and none is
// left once the bridge has stopped.
func (e *bridgeEnv) runAdapter(t *testing.T, work, text string, mockLog func() []string, procEnv string, minProcs int) {
	t.Helper()
	b := e.start(t)
	fw := e.watchFrames(t)
	m, r := e.ask(t, b, "say hello", 90*time.Second)
	if r.Content != text {
		t.Fatalf("reply %q, want exactly %q; mock log %v; bridge log:\n%s", r.Content, text, mockLog(), b.logs())
	}
	replyTags(t, r, "room", m.ID, m.ID, e.alice.pk)

	m2 := e.mention(t, e.a, e.alice, "room", "please run it [[shell]]")
	session, id, allow := permissionRequest(t, fw)
	if allow == "" {
		t.Fatal("the permission request has no allow_once option")
	}
	if _, err := os.Stat(filepath.Join(work, "out.txt")); err == nil {
		t.Fatal("the command ran before the owner approved it")
	}
	e.control(t, observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: allow})
	r2 := e.waitReply(t, "room", m2.ID, 90*time.Second, b)
	if r2.Content != "the command ran" {
		t.Fatalf("reply %q; mock log %v; bridge log:\n%s", r2.Content, mockLog(), b.logs())
	}
	replyTags(t, r2, "room", m2.ID, m2.ID, e.alice.pk)
	out, err := os.ReadFile(filepath.Join(work, "out.txt"))
	if err != nil || string(out) != "hi\n" {
		t.Fatalf("out.txt after approval: %q %v", out, err)
	}
	e.settled(t, "room", b)
	for _, id := range []string{m.ID, m2.ID} {
		if n := e.repliesTo(t, "room", id); n != 1 {
			t.Fatalf("%d replies to mention %s", n, id)
		}
	}
	procs := procsWithEnv(procEnv)
	if len(procs) < minProcs {
		t.Fatalf("adapter processes during the run: %v, want at least %d", procs, minProcs)
	}
	b.stop()
	noProcsLeft(t, procEnv, procs)
}

// The real claude-agent-acp, its model calls answered by the mock Anthropic
// API: the adapter turns, Bash as the shell tool; no process is left once
// the bridge stops.
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
	// The README's claude-agent-acp example as written (its key, mode and
	// permissions), pointed at the mock, with IS_SANDBOX cleared as the
	// README says.
	a := readmeAgent(t, "claude")
	if cmd, _ := a["command"].([]any); len(cmd) != 1 || cmd[0] != "claude-agent-acp" {
		t.Fatalf("the README's claude command is %v, not [\"claude-agent-acp\"]", a["command"])
	}
	e.config(t, []string{bin}, readmeAgentLines(t, a, map[string]string{"HOME": home, "ANTHROPIC_BASE_URL": mock.URL,
		"DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "IS_SANDBOX": ""},
		`permission_timeout = "90s"`, `turn_timeout = "3m"`, `idle_timeout = "2m"`)...)
	e.runAdapter(t, e.workDir(t), mock.Text, mock.Log, "HOME="+home, 1)
}
