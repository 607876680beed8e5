package agentbridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePersona(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "reviewer.persona.md")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodPersona = `---
display_name: Reviewer
about: Reviews what it is shown
picture: https://example.org/reviewer.png
model: claude-sonnet-4
mode: default
permissions: deny
answer: [owner, members]
mcp_servers:
  - name: fs
    command: mcp-fs
    args: ["--ro"]
context: thread
context_messages: 30
context_bytes: 4096
---
You review code. Be brief.

Say what is wrong first.
`

func TestLoadPersona(t *testing.T) {
	p, err := LoadPersona(writePersona(t, t.TempDir(), goodPersona))
	if err != nil {
		t.Fatal(err)
	}
	if p.DisplayName != "Reviewer" || p.About != "Reviews what it is shown" || p.Picture != "https://example.org/reviewer.png" ||
		p.Model != "claude-sonnet-4" || p.Mode != "default" || p.Permissions != "deny" || p.Context != "thread" ||
		p.ContextMessages != 30 || p.ContextBytes != 4096 || len(p.MCPServers) != 1 || p.MCPServers[0].Args[0] != "--ro" {
		t.Fatalf("persona: %+v", p)
	}
	if p.Instructions != "You review code. Be brief.\n\nSay what is wrong first." {
		t.Fatalf("instructions: %q", p.Instructions)
	}
}

func TestPersonaRefusals(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "reviewer.persona.md")
	for _, c := range []struct{ text, want string }{
		{"---\ndisplay_name: R\ncolour: blue\n---\nbody", path + `:3: unknown key "colour": a persona's keys are display_name, about, picture, model, mode, permissions, answer, mcp_servers, context, context_messages, context_bytes`},
		{"---\nmcp_servers:\n  - name: fs\n    command: x\n    cwd: /\n---\n", path + ": yaml: unmarshal errors:\n  line 5: field cwd not found in type agentbridge.MCPServer"},
		{"---\ncontext_messages: many\n---\n", path + ": yaml: unmarshal errors:\n  line 2: cannot unmarshal !!str `many` into int"},
		{"display_name: R\n", path + `:1: a persona file starts with a line "---", its front matter, and another "---" line before the instructions`},
		{"---\ndisplay_name: R\n", path + `:1: the front matter has no closing "---" line`},
	} {
		writePersona(t, dir, c.text)
		if _, err := LoadPersona(path); err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.text, err, c.want)
		}
	}
}

// The [[agent]] table's own keys win over the persona's; a bad value from
// the persona is refused like one in the table.
func TestConfigWithPersona(t *testing.T) {
	dir := t.TempDir()
	writePersona(t, dir, goodPersona)
	cfg := filepath.Join(dir, "bridge.toml")
	base := "hub = \"ws://127.0.0.1:1\"\n[[agent]]\nname = \"rev\"\nkey = \"k\"\nattestation = \"t\"\ncommand = [\"x\"]\npersona = \"reviewer.persona.md\"\n"
	os.WriteFile(cfg, []byte(base+"model = \"opus\"\n"), 0o600)
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agents[0]
	if a.Model != "opus" || a.Mode != "default" || a.Permissions != "deny" || a.Context != "thread" || a.ContextMessages != 30 ||
		!a.answer.Owner || !a.answer.Members || len(a.MCPServers) != 1 || a.persona.DisplayName != "Reviewer" {
		t.Fatalf("agent: %+v", a)
	}
	writePersona(t, dir, strings.Replace(goodPersona, "permissions: deny", "permissions: sometimes", 1))
	if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), `permissions = "sometimes": use "ask", "allow" or "deny"`) {
		t.Fatalf("bad persona value: %v", err)
	}
}
