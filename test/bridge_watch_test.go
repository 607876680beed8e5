package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
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
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	return stdoutLines(t, cmd), stderr
}

// watchControls subscribes, as the agent, to the control frames pk sends
// it; the function returned waits for the first. hive agent watch sends
// its watch control frame once its frames subscription is on the wire, and
// the hub takes a connection's messages in order: when the frame arrives,
// no frame the bridge sends from then on is missed.
func (e *bridgeEnv) watchControls(t *testing.T, pk string) func() {
	t.Helper()
	spy := e.h.as(t, e.agent, attest(t, e.alice, e.agent, time.Hour))
	spy.send([]any{"REQ", "controls", nostr.Filter{Kinds: []int{kinds.ObserverFrame}, Authors: []string{pk}, Tags: nostr.TagMap{"p": {e.agent.pk}}}})
	spy.expect("EOSE")
	return func() {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			if m := spy.next(30 * time.Second); str(m[0]) == "EVENT" {
				return
			}
		}
		t.Fatalf("no control frame from %s reached the hub", pk[:8])
	}
}

// A watch started after the agent asked for permission still shows the
// request (the bridge sends it again on the watch control frame), and the
// owner's answer then lets the turn finish.
func TestAgentWatchLateSeesPendingPermission(t *testing.T) {
	e, b := startScripted(t, `permissions = "ask"`, `permission_timeout = "2m"`)
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

// deviceWatch subscribes as the agent's key (as its bridge would) to the
// control frames of device; the returned func waits for the first.
func (e *bridgeEnv) deviceWatch(t *testing.T, device string) func() {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, "agent.tag"))
	if err != nil {
		t.Fatal(err)
	}
	tag, err := identity.ParseTagJSON(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	r := e.h.as(t, e.agent, tag)
	r.send([]any{"REQ", "ctl", nostr.Filter{Kinds: []int{kinds.ObserverFrame}, Authors: []string{device}, Tags: nostr.TagMap{"p": {e.agent.pk}}}})
	r.expect("EOSE")
	return func() {
		t.Helper()
		defer r.ws.Close()
		r.expect("EVENT")
	}
}

// lineWith waits for a line of a `hive agent watch --plain` with sub in it.
func lineWith(t *testing.T, lines <-chan string, stderr *strings.Builder, within time.Duration, sub string) bool {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("hive agent watch exited: %s", stderr)
			}
			if strings.Contains(l, sub) {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

// A paired device's `hive agent watch`, started while no bridge runs, shows
// the agent's permission request within 3 s of the owner's key once the
// bridge starts, and again after the bridge is killed -9 and restarted (the
// restarted agent process asks with the same session and JSON-RPC id: a new
// request all the same), spec/agents.md "A watch outlives restarts".
func TestAgentWatchDeviceBeforeBridge(t *testing.T) {
	e := newBridgeEnv(t)
	e.scripted(t, `permissions = "ask"`, `permission_timeout = "2m"`)
	e.start(t).stop() // an agent that ran before (the hub has its profile), no bridge now
	phone := e.pairDevice(t, e.alice)
	owner := e.watchFrames(t)
	watched := e.deviceWatch(t, phone.pk)
	lines, stderr := e.agentWatch(t, "phone", phone.sk, "--plain", "--auth-tag", identity.TagJSON(phone.tag))
	watched() // its watch went to no bridge

	e.eachBridgeRun(t, func(what string, b *bridgeProc) {
		m := e.mention(t, e.a, e.alice, "room", what+" [[permission]]")
		session, id, allow := permissionRequest(t, owner)
		if !lineWith(t, lines, stderr, 3*time.Second, m.ID[:8]+" permission: ") {
			t.Fatalf("%s: the owner's key got the permission request, the device's hive agent watch printed none within 3 s (stderr %s)\n%s", what, stderr, b.logs())
		}
		e.control(t, observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: allow})
		if r := e.waitReply(t, "room", m.ID, 20*time.Second, b); !strings.Contains(r.Content, "permission: allow") {
			t.Fatalf("%s: reply %q", what, r.Content)
		}
	})
}

// eachBridgeRun starts the bridge and runs ask, then kills the bridge with
// -9, starts it again and runs ask again.
func (e *bridgeEnv) eachBridgeRun(t *testing.T, ask func(what string, b *bridgeProc)) {
	t.Helper()
	b := e.start(t)
	ask("after the bridge started", b)
	b.kill9()
	ask("after the bridge was killed", e.start(t))
}
