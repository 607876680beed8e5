package agentbridge

import (
	"encoding/json"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

func TestLineInfo(t *testing.T) {
	for _, c := range []struct{ line, session, method, update string }{
		{`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"hi \"sessionId\":\"x\""}],"sessionId":"s1"}}`, "s1", "session/prompt", ""},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s2","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}}`, "s2", "session/update", "agent_message_chunk"},
		{`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`, "", "", ""},
		{`not json`, "", "", ""},
	} {
		s, m, u := lineInfo([]byte(c.line))
		if s != c.session || m != c.method || u != c.update {
			t.Errorf("%s: got %q %q %q", c.line, s, m, u)
		}
	}
}

// BenchmarkLineInfoBatchPrompt is routing's cost for a prompt of 50
// batched mentions of 2 KB each (the SDK writes sessionId after the prompt).
func BenchmarkLineInfoBatchPrompt(b *testing.B) {
	var blocks []acp.ContentBlock
	for range 50 {
		blocks = append(blocks, acp.TextBlock(strings.Repeat("mention text ", 160)))
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "session/prompt",
		"params": acp.PromptRequest{SessionId: "s1", Prompt: blocks}})
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if s, _, _ := lineInfo(line); s != "s1" {
			b.Fatal(s)
		}
	}
}
