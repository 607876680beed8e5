package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// bridgeAgents starts the real hive bridge over the scripted ACP agent
// (test/acpagent) for agents named by their config lines (answer gate
// etc.), each with a key attested by alice and added to ops.
func (e *wfEnv) bridgeAgents(t *testing.T, agents map[string]string) {
	t.Helper()
	bin := goTool(t, "acpagent")
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "hub = %q\npin = %q\nstate_dir = \"bridge-state\"\n", e.hub, e.pin)
	for name, lines := range agents {
		kf := filepath.Join(e.dir, name+".key")
		var k struct{ Npub string }
		json.Unmarshal([]byte(e.c.ok("key", "new", "--out", kf, "--json")), &k)
		var att struct{ Tag json.RawMessage }
		json.Unmarshal([]byte(e.c.ok("agent", "attest", "--key", filepath.Join(e.dir, "hub", "admin.key"), "--agent", k.Npub, "--expires", "2h", "--not-before", "none", "--json")), &att)
		os.WriteFile(filepath.Join(e.dir, name+".tag"), append(att.Tag, '\n'), 0o600)
		e.c.ok("channel", "add", "ops", k.Npub, "--profile", "alice")
		cmd, _ := json.Marshal([]string{bin})
		fmt.Fprintf(&cfg, "\n[[agent]]\nname = %q\nkey = %q\nattestation = %q\ncommand = %s\ncwd = \".\"\nenv = { ACPAGENT_DIR = %q }\n%s\n",
			name, name+".key", name+".tag", cmd, filepath.Join(e.dir, "sessions-"+name), lines)
	}
	path := filepath.Join(e.dir, "bridge.toml")
	os.WriteFile(path, []byte(cfg.String()), 0o600)
	cmd := exec.Command(binary(t), "bridge", "--config", path, "-v")
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), "IS_SANDBOX=")
	b := &bridgeProc{startLogged(t, cmd, "member of channel", 30*time.Second)}
	t.Cleanup(b.stop)
}

const askWorkflow = `name: %s
channel: ops
on: {manual: {}}
steps:
  - id: review
    ask_agent: {agent: "@%s", text: "check ${{ run.short }}", timeout: %s}
  - id: echo
    post: "the %s said: ${{ steps.review.text }}"
`

// ask_agent through the real hive bridge and the scripted agent: the
// mention in the run's thread gets an answered receipt and the reply's
// text is steps.review.text; an agent whose answer gate does not admit
// the runner answers not-answered, and the step fails with the receipt's
// reason and how to fix it; an agent whose bridge is not running does
// not answer before the timeout, which fails the step saying so.
func TestWorkflowAskAgent(t *testing.T) {
	e := newWorkflowEnvOf(t, "bob")
	e.bridgeAgents(t, map[string]string{
		"reviewer": fmt.Sprintf("answer = [%q]", e.runnerNpub),
		"strict":   "",
	})
	_, _ = e.connectAttested(t, e.keysOf(t, "alice"), false) // "helper": no bridge answers for it
	e.apply(t, "ask", fmt.Sprintf(askWorkflow, "ask", "reviewer", "1m", "reviewer"))
	e.apply(t, "strict", fmt.Sprintf(askWorkflow, "strict", "strict", "1m", "strict"))
	e.apply(t, "ghost", fmt.Sprintf(askWorkflow, "ghost", "helper", "2s", "helper"))
	e.serve(t)

	run := e.runID(t, "ask")
	if rec := e.waitFinal(t, run, 40*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("ask: %s %q", rec.Status, rec.Reason)
	}
	said := e.messagesWith(t, "the reviewer said: ")
	if len(said) != 1 || !strings.Contains(said[0].Content, "check "+run[:8]) || !strings.Contains(said[0].Content, "heard") {
		t.Fatalf("the post after ask_agent: %+v", said)
	}
	w := e.recordBodies(t, run, kinds.RunWaiting)
	if len(w) != 1 || w[0].For != kinds.WaitAgent || w[0].Who != "reviewer" || w[0].Publish == nil || w[0].Publish.Content != "@reviewer check "+run[:8] ||
		len(e.query(t, nostr.Filter{IDs: []string{w[0].Request}})) != 1 {
		t.Fatalf("the waiting record: %+v", w)
	}

	run = e.runID(t, "strict")
	rec := e.waitFinal(t, run, 40*time.Second)
	if rec.Status != kinds.RunFailed || !strings.HasPrefix(rec.Reason, "at review: strict will not answer the runner: not answered: this agent answers only its owner") ||
		!strings.HasSuffix(rec.Reason, "; to let it answer this workflow, its owner adds the runner's npub ("+e.runnerNpub+") to answer in its bridge config") {
		t.Fatalf("strict: %s %q", rec.Status, rec.Reason)
	}

	run = e.runID(t, "ghost")
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFailed || rec.Reason != "at review: helper did not answer within 2s (is its bridge running? hive who shows it)" {
		t.Fatalf("ghost: %s %q", rec.Status, rec.Reason)
	}
}

// examples/workflows/deploy.yaml as written, through the real binaries: a
// "!deploy api" by alice gets 👀, the reviewer agent (hive bridge over the
// scripted agent) answers, the gate asks the channel admins (carol) with
// the reviewer's words in the request, carol's ✅ approves, and the run goes
// on to the CI call with steps.gate.approved. The CI host is not reachable
// from a test (it is not in the runner's allow_hosts), so the run ends at
// the deploy step, saying why, and never posts the done message.
func TestWorkflowDeployExample(t *testing.T) {
	e := newWorkflowEnvOf(t, "carol")
	e.c.ok("channel", "add", "ops", e.tm.npub["carol"], "--role", "admin", "--profile", "alice")
	e.bridgeAgents(t, map[string]string{"reviewer": fmt.Sprintf("answer = [%q]", e.runnerNpub)})
	src, err := os.ReadFile(filepath.Join("..", "examples", "workflows", "deploy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.apply(t, "deploy", string(src))
	cfg, _ := os.ReadFile(e.config)
	os.WriteFile(e.config, append(cfg, []byte("[secrets]\nCI_TOKEN = {env = \"CI_TOKEN\"}\n")...), 0o600)
	e.serveEnv(t, []string{"CI_TOKEN=tok-123456"})
	msg := e.post(t, "!deploy api")
	run := e.messageRun("deploy", msg)
	b, req := e.gateOf(t, run)
	carol := e.keysOf(t, "carol").PublicHex
	if b.Who != "channel admins" || len(b.Approvers) != 1 || b.Approvers[0] != carol || !strings.Contains(req.Content, "Deploy api? The reviewer says:\nheard") {
		t.Fatalf("the gate: %+v\n%s", b, req.Content)
	}
	if rx := e.query(t, nostr.Filter{Kinds: []int{kinds.Reaction}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{"e": {msg.ID}}}); len(rx) != 1 || rx[0].Content != "👀" {
		t.Fatalf("the ack: %+v", rx)
	}
	react(t, e.as(t, "carol"), req, "✅")
	rec := e.waitFinal(t, run, 30*time.Second)
	got := statuses(e.records(t, run))
	if !strings.Contains(got, "step/review:success waiting/gate:running approved/gate: step/gate:success step/deploy:") || rec.Status != kinds.RunFailed || !strings.HasPrefix(rec.Reason, "at deploy: ") {
		t.Fatalf("the run: %s %q\n%s", rec.Status, rec.Reason, got)
	}
	if strings.Contains(rec.Reason, "tok-123456") || len(e.messagesWith(t, "🚀 Deploying")) != 0 {
		t.Fatalf("the end: %q", rec.Reason)
	}
}
