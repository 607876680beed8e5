package mockmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

// Anthropic is a running mock of the Anthropic messages API.
type Anthropic struct {
	*server
	prompts []string        // under server.mu
	asked   []Asked         // under server.mu: the requests prompts came in
	called  map[string]bool // cue texts whose MCP calls were made
	calls   int             // MCP calls made, for their ids
	batch   map[string]bool // the ids of the newest answer's MCP calls
}

// StartAnthropic serves the mock on 127.0.0.1 until Close; URL is the base
// URL for ANTHROPIC_BASE_URL.
func StartAnthropic(text, shell string) (*Anthropic, error) {
	mux := http.NewServeMux()
	srv, err := serve(mux, text, shell)
	if err != nil {
		return nil, err
	}
	m := &Anthropic{server: srv, called: map[string]bool{}}
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		m.note("count_tokens")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":12}`)
	})
	mux.HandleFunc("POST /v1/messages", m.messages)
	return m, nil
}

type request struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"` // a string or text blocks
	Stream   bool            `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"` // a tool_result's
}

// blocks reads a message's content, a string or a list of blocks.
func blocks(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	json.Unmarshal(raw, &bs)
	return bs
}

func (m *Anthropic) messages(w http.ResponseWriter, r *http.Request) {
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	hasBash := offered["Bash"]
	var answer []block
	stop := "end_turn"
	last := len(req.Messages) - 1
	var lastBlocks []block
	if last >= 0 {
		lastBlocks = blocks(req.Messages[last].Content)
		if req.Messages[last].Role == "user" && !hasToolResult(lastBlocks) {
			m.notePrompt(userText(lastBlocks), req.Model, systemText(req.System))
		}
	}
	var calls []block
	if last >= 0 && req.Messages[last].Role == "user" {
		calls = m.mcpCalls(lastBlocks, offered)
	}
	switch {
	case calls != nil:
		answer, stop = calls, "tool_use"
		m.note(fmt.Sprintf("messages: %d MCP tool_use %s", len(answer), answer[0].Name))
	case last >= 0 && req.Messages[last].Role == "user" && m.mcpResults(lastBlocks) != "":
		answer = []block{{Type: "text", Text: m.mcpResults(lastBlocks)}}
		m.note("messages: after MCP tool results")
	case last >= 0 && req.Messages[last].Role == "user" && hasToolResult(blocks(req.Messages[last].Content)):
		answer = []block{{Type: "text", Text: "the command ran"}}
		m.note("messages: after tool_result")
	case last >= 0 && hasBash && strings.Contains(userText(blocks(req.Messages[last].Content)), "[[shell]]"):
		in, _ := json.Marshal(map[string]string{"command": m.ShellCommand, "description": "Run the requested command"})
		answer = []block{{Type: "tool_use", ID: "toolu_mock_1", Name: "Bash", Input: in}}
		stop = "tool_use"
		m.note("messages: tool_use Bash")
	default:
		text := m.Text
		if last >= 0 {
			if c := lastCue(sayCue, req.Messages[last].Content); c != "" {
				text = c
			}
		}
		answer = []block{{Type: "text", Text: text}}
		m.note(fmt.Sprintf("messages: text %q (tools=%d)", text, len(req.Tools)))
		if os.Getenv("MOCKMODEL_DEBUG") != "" {
			b, _ := json.Marshal(req.Messages)
			m.note(string(b))
		}
	}
	var pause time.Duration
	if last >= 0 {
		pause, _ = time.ParseDuration(lastCue(slowCue, req.Messages[last].Content))
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_mock", "type": "message", "role": "assistant", "model": req.Model,
			"content": answer, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 12, "output_tokens": 5}})
		return
	}
	stream(w, r, req.Model, answer, stop, pause)
}

// The cues of the Anthropic mock's plain answers: [[say:WORD]] answers WORD
// instead of Text; [[slow:DUR]] pauses the stream for DUR after the first
// half of the text (or until the client goes away).
var (
	sayCue  = regexp.MustCompile(`\[\[say:([^\]]+)\]\]`)
	slowCue = regexp.MustCompile(`\[\[slow:([^\]]+)\]\]`)
)

func hasToolResult(bs []block) bool {
	for _, b := range bs {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

func userText(bs []block) string {
	var s strings.Builder
	for _, b := range bs {
		if b.Type == "text" {
			s.WriteString(b.Text)
		}
	}
	return s.String()
}

// lastCue is the argument of the last text block's last cue of re in a
// message's content ("" if that block has none): a user message may carry
// earlier prompts' text blocks too.
func lastCue(re *regexp.Regexp, content json.RawMessage) string {
	bs := blocks(content)
	for i := len(bs) - 1; i >= 0; i-- {
		if bs[i].Type != "text" {
			continue
		}
		if cs := re.FindAllStringSubmatch(bs[i].Text, -1); len(cs) > 0 {
			return cs[len(cs)-1][1]
		}
		return ""
	}
	return ""
}

// stream writes the answer as the messages API's server-sent events,
// pausing after the first half of each text for pause (or until the request
// ends).
func stream(w http.ResponseWriter, r *http.Request, model string, answer []block, stop string, pause time.Duration) {
	send := sse(w)
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_mock", "type": "message", "role": "assistant",
		"model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 12, "output_tokens": 1}}})
	for i, b := range answer {
		switch b.Type {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			half := len(b.Text) / 2
			for j, part := range []string{b.Text[:half], b.Text[half:]} {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
				if j == 0 && pause > 0 {
					select {
					case <-time.After(pause):
					case <-r.Context().Done():
						return
					}
				}
			}
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}})
	send("message_stop", map[string]any{"type": "message_stop"})
}
