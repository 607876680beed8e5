package test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/identity"
)

// agentWatch runs `hive agent watch` for the bridge env's agent as the key
// sk, and returns its stdout lines and its stderr.
func (e *bridgeEnv) agentWatch(t *testing.T, name, sk string, args ...string) (<-chan string, *strings.Builder) {
	t.Helper()
	keyFile := filepath.Join(e.dir, name+".key")
	keys, _ := identity.KeysFromSecretHex(sk)
	if err := identity.SaveKeyFile(keyFile, keys, identity.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), append([]string{"agent", "watch", e.agent.pk, "--key", keyFile, "--hub", e.h.URL}, args...)...)
	out, _ := cmd.StdoutPipe()
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines, stderr
}

// A watch started after the agent asked for permission still shows the
// request (the bridge sends it again on the watch control frame), and the
// owner's answer then lets the turn finish.
func TestAgentWatchLateSeesPendingPermission(t *testing.T) {
	e := newBridgeEnv(t)
	e.scripted(t, `permissions = "ask"`, `permission_timeout = "2m"`)
	b := e.start(t)
	early := e.watchFrames(t)
	m := e.mention(t, e.a, e.alice, "room", "may I? [[permission]]")
	session, id, allow := permissionRequest(t, early) // the request is pending now

	lines, stderr := e.agentWatch(t, "owner", e.alice.sk, "--json")
	deadline := time.After(20 * time.Second)
	for found := false; !found; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("watch exited: %s", stderr)
			}
			var f observer.Frame
			if json.Unmarshal([]byte(l), &f) != nil {
				t.Fatalf("watch --json printed %q", l)
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			json.Unmarshal(f.Msg, &msg)
			found = msg.Method == "session/request_permission" && string(msg.ID) == string(id) && f.Session == session && f.Turn == m.ID
		case <-deadline:
			t.Fatalf("a watch started after the request never saw it (stderr %s)", stderr)
		}
	}
	e.control(t, observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: allow})
	if r := e.waitReply(t, "room", m.ID, 20*time.Second, b); !strings.Contains(r.Content, "permission: allow") {
		t.Fatalf("reply after the late watcher's approval: %q", r.Content)
	}
}
