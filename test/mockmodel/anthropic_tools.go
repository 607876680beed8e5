package mockmodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// mcpCue asks the Anthropic mock to call an MCP tool of the "hive" server:
// [[hive:TOOL:JSON]] once, [[hive:TOOL*N:JSON]] N times; every cue of the
// newest text block is called, in one answer.
// The request carrying the results is answered "tool results: " and the
// results' texts joined by " || ".
var mcpCue = regexp.MustCompile(`\[\[hive:([a-z_]+)(?:\*(\d+))?:(\{.*?\})\]\]`)

// mcpToolPrefix is how claude-agent-acp names an MCP server's tools.
const mcpToolPrefix = "mcp__hive__"

// mcpIDPrefix marks the tool_use ids of MCP calls.
const mcpIDPrefix = "toolu_mock_mcp_"

// mcpCalls is the answer to the [[hive:...]] cues of the newest text
// block of bs with cues, after its last tool result (claude-agent-acp may
// send a new prompt in one user message with the last turn's results),
// whose tools the request offers; nil when there is none. Each cue text is
// called once (ids are unique per mock): a later request repeating it is
// answered from its results.
func (m *Anthropic) mcpCalls(bs []block, offered map[string]bool) []block {
	var text string
	for i := len(bs) - 1; i >= 0 && bs[i].Type != "tool_result"; i-- {
		if bs[i].Type == "text" && mcpCue.MatchString(bs[i].Text) {
			text = bs[i].Text
			break
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if text == "" || m.called[text] {
		return nil
	}
	var out []block
	for _, c := range mcpCue.FindAllStringSubmatch(text, -1) {
		if !offered[mcpToolPrefix+c[1]] {
			continue
		}
		n, _ := strconv.Atoi(c[2])
		for range max(n, 1) {
			m.calls++
			out = append(out, block{Type: "tool_use", ID: fmt.Sprintf("%s%d", mcpIDPrefix, m.calls), Name: mcpToolPrefix + c[1], Input: json.RawMessage(c[3])})
		}
	}
	m.called[text] = len(out) > 0
	if len(out) > 0 {
		m.batch = map[string]bool{}
		for _, b := range out {
			m.batch[b.ID] = true
		}
	}
	return out
}

// mcpResults is the text of the results in bs of the newest MCP calls
// ("" if none).
func (m *Anthropic) mcpResults(bs []block) string {
	m.mu.Lock()
	batch := m.batch
	m.mu.Unlock()
	var parts []string
	for _, b := range bs {
		if b.Type != "tool_result" || !batch[b.ToolUseID] {
			continue
		}
		var s string
		if json.Unmarshal(b.Content, &s) == nil {
			parts = append(parts, s)
			continue
		}
		for _, inner := range blocks(b.Content) {
			parts = append(parts, inner.Text)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "tool results: " + strings.Join(parts, " || ")
}

// Prompts returns the user text of every request whose newest message is
// the user's own (not a tool result), in order.
func (m *Anthropic) Prompts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.prompts...)
}

func (m *Anthropic) notePrompt(text, model, system string) {
	m.mu.Lock()
	m.prompts = append(m.prompts, text)
	m.asked = append(m.asked, Asked{Prompt: text, Model: model, System: system})
	m.mu.Unlock()
}

// Asked is a request that brought a user prompt: its text, the model it
// names and its system prompt.
type Asked struct{ Prompt, Model, System string }

// Asks returns every request whose newest message is the user's own, in
// order, with its model and system prompt.
func (m *Anthropic) Asks() []Asked {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Asked(nil), m.asked...)
}

// systemText is a request's system prompt as text (blocks joined).
func systemText(raw json.RawMessage) string {
	var b strings.Builder
	for _, bl := range blocks(raw) {
		b.WriteString(bl.Text)
	}
	return b.String()
}
