package agentbridge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxPersonaBytes bounds a persona file.
const MaxPersonaBytes = 256 << 10

// Persona is a persona file's front matter (spec/agents.md, "Persona
// files"): YAML between two "---" lines, then a markdown body that becomes
// the agent's instructions.
type Persona struct {
	DisplayName     string      `yaml:"display_name"`
	About           string      `yaml:"about"`
	Picture         string      `yaml:"picture"`
	Model           string      `yaml:"model"`
	Mode            string      `yaml:"mode"`
	Permissions     string      `yaml:"permissions"`
	Answer          any         `yaml:"answer"`
	MCPServers      []MCPServer `yaml:"mcp_servers"`
	Context         string      `yaml:"context"`
	ContextMessages int         `yaml:"context_messages"`
	ContextBytes    int         `yaml:"context_bytes"`

	Instructions string `yaml:"-"` // the body
}

// personaKeys are the front matter's keys, in the order of Persona.
func personaKeys() []string {
	return []string{"display_name", "about", "picture", "model", "mode", "permissions", "answer", "mcp_servers", "context", "context_messages", "context_bytes"}
}

// LoadPersona reads a persona file. Errors name the file and the line.
func LoadPersona(path string) (*Persona, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("persona file %s: %w", path, err)
	}
	if len(raw) > MaxPersonaBytes {
		return nil, fmt.Errorf("persona file %s is %d bytes: at most %d", path, len(raw), MaxPersonaBytes)
	}
	front, body, err := splitFrontMatter(raw)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return nil, fmt.Errorf("%s: front matter: %w", path, shiftYAMLLines(err))
	}
	p := &Persona{Instructions: strings.TrimSpace(string(body))}
	if len(doc.Content) == 0 { // empty front matter
		return p, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: the front matter is not a list of keys (key: value)", path, m.Line+1)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !slices.Contains(personaKeys(), k.Value) {
			return nil, fmt.Errorf("%s:%d: unknown key %q: a persona's keys are %s", path, k.Line+1, k.Value, strings.Join(personaKeys(), ", "))
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(front))
	dec.KnownFields(true) // unknown keys inside mcp_servers entries too
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, shiftYAMLLines(err))
	}
	return p, nil
}

// splitFrontMatter cuts a file into its front matter (between a first line
// "---" and the next "---" line) and its body.
func splitFrontMatter(raw []byte) (front, body []byte, err error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	first, rest, _ := bytes.Cut(raw, []byte("\n"))
	if string(bytes.TrimRight(first, "\r ")) != "---" {
		return nil, nil, errors.New(`a persona file starts with a line "---", its front matter, and another "---" line before the instructions`)
	}
	for off := 0; off <= len(rest); {
		line, next, found := bytes.Cut(rest[off:], []byte("\n"))
		if string(bytes.TrimRight(line, "\r ")) == "---" {
			if !found {
				return rest[:off], nil, nil
			}
			return rest[:off], next, nil
		}
		if !found {
			break
		}
		off += len(line) + 1
	}
	return nil, nil, errors.New(`the front matter has no closing "---" line`)
}

// shiftYAMLLines renumbers a YAML error's "line N" from the front matter's
// first line to the file's (the opening "---" is line 1).
func shiftYAMLLines(err error) error {
	msg := err.Error()
	var b strings.Builder
	for {
		i := strings.Index(msg, "line ")
		if i < 0 {
			b.WriteString(msg)
			return errors.New(b.String())
		}
		j := i + len("line ")
		n := 0
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			n = n*10 + int(msg[j]-'0')
			j++
		}
		b.WriteString(msg[:i+len("line ")])
		if j > i+len("line ") {
			fmt.Fprintf(&b, "%d", n+1)
		}
		msg = msg[j:]
	}
}

// applyPersona fills the agent's keys its [[agent]] table leaves unset from
// the persona file named by persona (the table's own values win); the
// persona's mcp_servers come after the table's.
func (a *AgentConfig) applyPersona(path string) error {
	p, err := LoadPersona(path)
	if err != nil {
		return err
	}
	a.persona = p
	for _, kv := range []struct{ dst, src *string }{{&a.Model, &p.Model}, {&a.Mode, &p.Mode}, {&a.Permissions, &p.Permissions}, {&a.Context, &p.Context}} {
		if *kv.dst == "" {
			*kv.dst = *kv.src
		}
	}
	if a.Answer == nil {
		a.Answer = p.Answer
	}
	if a.ContextMessages == 0 {
		a.ContextMessages = p.ContextMessages
	}
	if a.ContextBytes == 0 {
		a.ContextBytes = p.ContextBytes
	}
	a.MCPServers = append(a.MCPServers, p.MCPServers...)
	return nil
}

// displayName is the agent's name on the hub: its persona's display name,
// else its config name.
func (a *AgentConfig) displayName() string {
	if p := a.persona; p != nil && p.DisplayName != "" {
		return p.DisplayName
	}
	return a.Name
}

// profile is the content of the agent's kind 0.
func (a *AgentConfig) profile() map[string]any {
	prof := map[string]any{"name": a.displayName(), "about": "ACP agent on hive bridge", "bot": true}
	if p := a.persona; p != nil {
		if p.About != "" {
			prof["about"] = p.About
		}
		if p.Picture != "" {
			prof["picture"] = p.Picture
		}
	}
	return prof
}

// instructions is the persona's body ("" without a persona).
func (a *AgentConfig) instructions() string {
	if a.persona == nil {
		return ""
	}
	return a.persona.Instructions
}

// takesSystemPrompt reports whether the agent program takes instructions
// as a system prompt at session/new and session/load: claude-agent-acp
// reads _meta.systemPrompt ({"append": text} keeps its own prompt).
// ACP has no capability for it, so it is known by the agent's name.
func takesSystemPrompt(info AgentInfo) bool {
	return strings.Contains(info.Name, "claude-agent-acp") || strings.Contains(info.Name, "claude-code-acp")
}

// sessionMeta is the _meta of session/new and session/load: the
// instructions as claude-agent-acp's appended system prompt.
func (a *AgentConfig) sessionMeta(info AgentInfo) map[string]any {
	if a.instructions() == "" || !takesSystemPrompt(info) {
		return nil
	}
	return map[string]any{"systemPrompt": map[string]any{"append": a.instructions()}}
}

// instructionsBlock is the first block of a new session's first prompt
// for an agent program that takes no system prompt ("" otherwise).
func (a *AgentConfig) instructionsBlock(info AgentInfo) string {
	if a.instructions() == "" || takesSystemPrompt(info) {
		return ""
	}
	return "[your instructions, from your persona file]\n" + a.instructions()
}
