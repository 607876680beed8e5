package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// personaFile writes reviewer.persona.md in the env's directory.
func (e *bridgeEnv) personaFile(t testing.TB, front, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.dir, "reviewer.persona.md"), []byte("---\n"+front+"---\n"+body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// profileOf is the content of key's kind 0 on the hub.
func (e *bridgeEnv) profileOf(t testing.TB, pk string) map[string]any {
	t.Helper()
	evs, _ := e.a.req("prof"+pk[:8], nostr.Filter{Kinds: []int{0}, Authors: []string{pk}})
	var prof map[string]any
	if len(evs) == 1 {
		json.Unmarshal([]byte(evs[0].Content), &prof)
	}
	return prof
}

// A persona file names the agent (its kind 0: display name, about,
// picture), and its body is the first block of a new session's first
// prompt for an agent that takes no system prompt (the scripted agent);
// "@Reviewer" typed without the tag is noticed by that name.
func TestBridgePersonaScripted(t *testing.T) {
	e := newBridgeEnv(t)
	e.personaFile(t, "display_name: Reviewer\nabout: Reviews what it is shown\npicture: https://example.org/r.png\n", "Always answer in one line.\n")
	e.scripted(t, `persona = "reviewer.persona.md"`)
	b := e.start(t)
	prof := e.profileOf(t, e.agent.pk)
	if prof["name"] != "Reviewer" || prof["about"] != "Reviews what it is shown" || prof["picture"] != "https://example.org/r.png" || prof["bot"] != true {
		t.Fatalf("the agent's profile: %v", prof)
	}
	m1 := e.mention(t, e.a, e.alice, "room", "first question")
	r1 := e.waitReply(t, "room", m1.ID, 30*time.Second, b).Content
	if r1 != "heard 2: Always answer in one line. | first question" { // the agent leaves out each block's [header] line
		t.Fatalf("the first prompt does not start with the instructions: %q", r1)
	}
	m2 := e.mention(t, e.a, e.alice, "room", "second question")
	if r2 := e.waitReply(t, "room", m2.ID, 30*time.Second, b).Content; r2 != "heard 1: second question" {
		t.Fatalf("the instructions came again in the same session: %q", r2)
	}
	typed := e.a.must(e.alice.sign(t, 9, "@reviewer did you see this?", nostr.Tag{"h", "room"}))
	if rs := e.waitReceipt(t, e.agent.pk, typed.ID, b); len(rs) != 1 || !strings.Contains(rs[0], "names @Reviewer in its text but does not tag the agent") {
		t.Fatalf("typed @reviewer: receipts %q", rs)
	}
}

// A bad key in a persona file is refused at start with the file and line.
func TestBridgePersonaBadKey(t *testing.T) {
	e := newBridgeEnv(t)
	e.personaFile(t, "display_name: Reviewer\nmodle: claude-sonnet-4\n", "body\n")
	e.scripted(t, `persona = "reviewer.persona.md"`)
	out, err := exec.Command(binary(t), "bridge", "--config", e.configPath).CombinedOutput()
	want := filepath.Join(e.dir, "reviewer.persona.md") + `:3: unknown key "modle": a persona's keys are display_name, about, picture, model, mode, permissions, answer, mcp_servers, context, context_messages, context_bytes`
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), want) {
		t.Fatalf("exit %v, want 1 with %q:\n%s", err, want, out)
	}
}

// The real claude-agent-acp with a persona: the mock model's requests
// carry the instructions in their system prompt (appended to the
// adapter's own) and the persona's model; the agent is named by it.
func TestBridgeClaudePersona(t *testing.T) {
	e, mock := claudeBridge(t, "persona answer", "", `persona = "reviewer.persona.md"`)
	e.personaFile(t, "display_name: Reviewer\nmodel: claude-persona-mock-1\npermissions: deny\n", "You are Reviewer. The code word is PERSIMMON-42.\n")
	b := e.start(t)
	if prof := e.profileOf(t, e.agent.pk); prof["name"] != "Reviewer" {
		t.Fatalf("the agent's profile: %v", prof)
	}
	m := e.mention(t, e.a, e.alice, "room", "review this please")
	if r := e.waitReply(t, "room", m.ID, 120*time.Second, b).Content; r != "persona answer" {
		t.Fatalf("reply %q; mock log %v", r, mock.Log())
	}
	var asked bool
	for _, a := range mock.Asks() {
		if !strings.Contains(a.Prompt, "review this please") {
			continue
		}
		asked = true
		if !strings.Contains(a.System, "You are Reviewer. The code word is PERSIMMON-42.") || a.Model != "claude-persona-mock-1" {
			t.Fatalf("the model's request: model %q, system prompt:\n%s", a.Model, a.System)
		}
		if strings.Contains(a.Prompt, "PERSIMMON") {
			t.Fatalf("the instructions are in the prompt as well: %q", a.Prompt)
		}
	}
	if !asked {
		t.Fatalf("the mock never got the prompt: %v", mock.Log())
	}
}
