package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// webAgent is the scripted agent "helper" under a real `hive bridge`,
// attested by the owner and added to room: pk is its key, dir the bridge's
// directory (config, key, state), which outlives each run.
type webAgent struct {
	pk, dir string
	home    string // the CLI's HIVE_HOME
}

// startWebAgent runs the bridge of a new agent; it returns the agent's pubkey.
func (w *webTeam) startWebAgent(t testing.TB) string {
	t.Helper()
	a := w.newWebAgent(t)
	a.run(t)
	return a.pk
}

// newWebAgent makes the agent "helper" (key, attestation, member of room)
// and its bridge's config, without running it.
func (w *webTeam) newWebAgent(t testing.TB) *webAgent {
	t.Helper()
	dir := t.TempDir()
	var agent struct{ Pubkey, Npub string }
	json.Unmarshal([]byte(w.cli.ok("key", "new", "--out", filepath.Join(dir, "agent.key"), "--json")), &agent)
	tag := w.cli.ok("agent", "attest", "--agent", agent.Npub, "--expires", "1h", "--profile", "owner")
	if err := os.WriteFile(filepath.Join(dir, "agent.tag"), []byte(tag), 0o600); err != nil {
		t.Fatal(err)
	}
	w.cli.ok("channel", "add", "room", agent.Npub, "--profile", "owner")
	cfg := fmt.Sprintf("hub = %q\npin = %q\nstate_dir = \"state\"\n\n[[agent]]\nname = \"helper\"\nkey = \"agent.key\"\nattestation = \"agent.tag\"\ncommand = [%q]\ncwd = \".\"\nenv = { ACPAGENT_DIR = %q }\n",
		w.h.WS, w.h.Pin, goTool(t, "acpagent"), filepath.Join(dir, "sessions"))
	if err := os.WriteFile(filepath.Join(dir, "bridge.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return &webAgent{pk: agent.Pubkey, dir: dir, home: w.cli.home}
}

// run starts the bridge and waits until it follows a channel; it is
// stopped when the test ends.
func (a *webAgent) run(t testing.TB) *bridgeProc {
	t.Helper()
	cmd := exec.Command(binary(t), "bridge", "--config", filepath.Join(a.dir, "bridge.toml"), "-v")
	cmd.Dir = a.dir
	cmd.Env = append(os.Environ(), "HIVE_HOME="+a.home)
	b := &bridgeProc{startLogged(t, cmd, "member of channel", 30*time.Second)}
	t.Cleanup(b.stop)
	return b
}

// The owner's agent asks for permission to run a tool: the request shows in
// the page as buttons with the agent's own options; a click on Allow
// answers it, the tool runs and the agent's reply arrives in the thread.
func TestWebApprovesPermission(t *testing.T) {
	w := startWebTeam(t)
	agent := w.startWebAgent(t)
	w.signInAsOwner(t)
	w.openChannel(t, "room")
	tail := w.tail(t, "bob", "room")

	w.b.typeInto(mainComposer, "@hel")
	w.b.waitVisible(tid("mention-option"))
	w.b.typeInto(mainComposer, "\t [[permission]] may I?\r")
	ask := tail.until("the mention", func(r rowJSON) bool { return strings.Contains(r.Text, "[[permission]] may I?") })
	if !slices.Contains(ask.Mentions, agent) {
		t.Fatalf("the page's mention %q p-tags %v, want the agent %s (picked from the @ completion)", ask.Text, ask.Mentions, agent)
	}

	w.b.waitVisible(tid("permission-request"))
	req := w.b.text(tid("permission-request"))
	for _, opt := range []string{"allow", "reject"} {
		if w.b.count(tid("permission-request")+" "+fmt.Sprintf(`[data-testid="permission-option"][data-option-id=%q]`, opt)) != 1 {
			t.Fatalf("the permission request %q lacks the agent's option %q", req, opt)
		}
	}
	w.b.screenshot("permission")
	w.b.click(tid("permission-request") + ` [data-testid="permission-option"][data-option-id="allow"]`)
	reply := tail.until("the agent's reply", func(r rowJSON) bool { return r.Author == agent && r.Op == "" })
	if !strings.Contains(reply.Text, "permission: allow") || reply.ReplyTo != ask.ID {
		t.Fatalf("the agent's reply %q (reply_to %s): want permission: allow in the thread of %s", reply.Text, reply.ReplyTo, ask.ID)
	}
	w.b.waitUntil("the page shows the agent's reply under the mention", fmt.Sprintf(`document.querySelector(%q)?.dataset.replies === "1"`,
		messageSel(ask.ID)+" "+tid("thread-replies")))
	w.b.waitUntil("the permission request is gone", fmt.Sprintf(`!document.querySelector(%q)`, tid("permission-request")))
	w.b.noConsoleErrors()
}
