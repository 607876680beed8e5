package test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// hive runs the binary and returns stdout; it fails the test on a non-zero exit.
func hiveCmd(t *testing.T, args ...string) string {
	t.Helper()
	out, code := hiveExit(t, args...)
	if code != 0 {
		t.Fatalf("hive %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

func hiveExit(t *testing.T, args ...string) (string, int) {
	t.Helper()
	stdout, stderr, code := hiveOutErr(t, args...)
	return stdout + stderr, code
}

// The identity flow through the real CLI and the real hub process: attest an
// agent, it authenticates and posts, revoke it, its connection is closed
// within a second and its next AUTH is refused.
func TestAgentLifecycleThroughCLI(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "hub")
	p := startProc(t, data, freeAddr(t))
	ownerKey := filepath.Join(data, "admin.key")
	agentKey := filepath.Join(dir, "agent.key")

	var created struct{ Pubkey, Npub string }
	json.Unmarshal([]byte(hiveCmd(t, "key", "new", "--out", agentKey, "--json")), &created)
	if _, code := hiveExit(t, "agent", "attest", "--key", ownerKey, "--agent", created.Npub); code != 1 {
		t.Fatalf("attest without --expires: exit %d, want 1 (bad input)", code)
	}
	var att struct{ Tag nostr.Tag }
	if err := json.Unmarshal([]byte(hiveCmd(t, "agent", "attest", "--key", ownerKey, "--agent", created.Npub, "--expires", "1h", "--json")), &att); err != nil {
		t.Fatal(err)
	}
	tagJSON := identity.TagJSON(att.Tag)
	hiveCmd(t, "agent", "profile", "--hub", p.URL, "--key", agentKey, "--auth-tag", tagJSON, "--name", "helper")

	agentKeys, err := identity.LoadKeyFile(agentKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	agent := key{agentKeys.SecretHex, agentKeys.PublicHex}
	ag := dialRaw(t, p.URL)
	if ok, msg := ag.authWith(agent, p.URL, 0, att.Tag); !ok {
		t.Fatalf("attested agent refused: %s", msg)
	}
	ag.must(agent.sign(t, 1, "agent at work"))

	var list struct{ Agents []agentRowJSON }
	json.Unmarshal([]byte(hiveCmd(t, "agent", "list", "--hub", p.URL, "--key", ownerKey, "--json")), &list)
	if len(list.Agents) != 1 || list.Agents[0].Agent != agent.pk || list.Agents[0].Revoked || list.Agents[0].ExpiresAt == nil {
		t.Fatalf("agent list before revoke: %+v", list.Agents)
	}

	closed := closedAt(ag)
	start := time.Now()
	hiveCmd(t, "agent", "revoke", "--hub", p.URL, "--key", ownerKey, "--agent", created.Npub)
	select {
	case at := <-closed:
		t.Logf("time to kick through the CLI: %v from command start", at.Sub(start))
	case <-time.After(3 * time.Second):
		t.Fatal("revoked agent still connected")
	}
	c := dialRaw(t, p.URL)
	if ok, msg := c.authWith(agent, p.URL, 0, att.Tag); ok || !hasPrefix(msg, "restricted:") {
		t.Fatalf("revoked agent AUTH: %v %q", ok, msg)
	}
	json.Unmarshal([]byte(hiveCmd(t, "agent", "list", "--hub", p.URL, "--key", ownerKey, "--json")), &list)
	if len(list.Agents) != 1 || !list.Agents[0].Revoked {
		t.Fatalf("agent list after revoke: %+v", list.Agents)
	}
	// a stranger's key gets a clear refusal and exit code 3
	stranger := filepath.Join(dir, "stranger.key")
	hiveCmd(t, "key", "new", "--out", stranger)
	if out, code := hiveExit(t, "agent", "list", "--hub", p.URL, "--key", stranger); code != 3 || !strings.Contains(out, "restricted:") {
		t.Fatalf("stranger: exit %d\n%s", code, out)
	}
	if _, code := hiveExit(t, "agent", "list", "--hub", "ws://127.0.0.1:1", "--key", ownerKey); code != 2 {
		t.Fatalf("unreachable hub: exit %d, want 2", code)
	}
}

type agentRowJSON struct {
	Agent     string `json:"agent"`
	ExpiresAt *int64 `json:"expires_at"`
	Revoked   bool   `json:"revoked"`
}
