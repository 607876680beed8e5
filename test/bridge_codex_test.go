package test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ainb/hive/agentbridge"
	"github.com/ainb/hive/test/mockmodel"
)

// codexHome writes a fresh CODEX_HOME whose config.toml sends codex's model
// calls to the mock Responses API (codex writes into it: one per run).
func codexHome(t *testing.T, dir, mockURL string) string {
	t.Helper()
	home := filepath.Join(dir, "codex-home")
	os.MkdirAll(home, 0o700)
	cfg := fmt.Sprintf(`model = "gpt-5.4-mini"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "%s/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false
`, mockURL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
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

// The real codex-acp (its Node wrapper and native child), its model calls
// answered by the mock Responses API through a CODEX_HOME provider config:
// a mention gets exactly the model's text as the one threaded reply; a turn
// where the model calls exec_command outside the sandbox raises a
// permission request (codex sends it before its tool_call), the owner
// approves it with a control frame, and the command runs. When the bridge
// stops, no codex process is left (the wrapper alone ignores stdin EOF and
// orphans its native child on SIGTERM: the bridge kills the group).
func TestBridgeCodexACP(t *testing.T) {
	bin := adapterBin(t, "codex-acp")
	const text = "hello from the mock model"
	mock, err := mockmodel.StartOpenAI(text, "echo hi > out.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	e := newBridgeEnv(t)
	home := filepath.Join(e.dir, "home")
	os.MkdirAll(home, 0o700)
	ch := codexHome(t, e.dir, mock.URL)
	e.config(t, []string{bin},
		fmt.Sprintf(`env = { HOME = %q, CODEX_HOME = %q }`, home, ch),
		`permissions = "ask"`, `permission_timeout = "90s"`, `turn_timeout = "3m"`, `idle_timeout = "2m"`)
	work := e.workDir(t)
	b := e.start(t)
	fw := e.watchFrames(t)

	m := e.mention(t, e.a, e.alice, "room", "say hello")
	r := e.waitReply(t, "room", m.ID, 90*time.Second, b)
	if r.Content != text {
		t.Fatalf("reply %q, want exactly %q; mock log %v; bridge log:\n%s", r.Content, text, mock.Log(), b.logs())
	}
	replyTags(t, r, "room", m.ID, m.ID, e.alice.pk)
	procs := procsWithEnv("CODEX_HOME=" + ch)
	if len(procs) < 2 {
		t.Fatalf("codex processes during the run: %v (want the wrapper and its native child)", procs)
	}

	m2 := e.mention(t, e.a, e.alice, "room", "please run it [[shell]]")
	session, id, allow := permissionRequest(t, fw)
	if allow == "" {
		t.Fatal("codex's permission request has no allow_once option")
	}
	if _, err := os.Stat(filepath.Join(work, "out.txt")); err == nil {
		t.Fatal("the command ran before the owner approved it")
	}
	e.control(t, agentbridge.Control{V: 1, Type: agentbridge.CtlPermission, Session: session, Request: id, Option: allow})
	r2 := e.waitReply(t, "room", m2.ID, 90*time.Second, b)
	if r2.Content != "the command ran" {
		t.Fatalf("reply %q; mock log %v", r2.Content, mock.Log())
	}
	replyTags(t, r2, "room", m2.ID, m2.ID, e.alice.pk)
	out, err := os.ReadFile(filepath.Join(work, "out.txt"))
	if err != nil || string(out) != "hi\n" {
		t.Fatalf("out.txt after approval: %q %v", out, err)
	}
	time.Sleep(time.Second)
	for _, id := range []string{m.ID, m2.ID} {
		if n := e.repliesTo(t, "room", id); n != 1 {
			t.Fatalf("%d replies to mention %s", n, id)
		}
	}

	b.stop()
	deadline := time.Now().Add(5 * time.Second)
	for left := procsWithEnv("CODEX_HOME=" + ch); len(left) > 0; left = procsWithEnv("CODEX_HOME=" + ch) {
		if time.Now().After(deadline) {
			for pid := range left {
				syscall.Kill(pid, syscall.SIGKILL) // do not leak them past the test
			}
			t.Fatalf("codex processes left after the bridge stopped: %v (of %v)", left, procs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
