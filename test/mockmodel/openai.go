package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// OpenAI is a running mock of the OpenAI Responses API, as codex (codex-acp)
// calls it through a custom model provider with wire_api = "responses".
type OpenAI struct {
	*server

	seq   atomic.Int64 // response and item ids
	auth  atomic.Value // string: the Authorization header of the newest request
	model atomic.Value // string: the model the newest request named
}

// Model is the model the newest request named.
func (m *OpenAI) Model() string {
	s, _ := m.model.Load().(string)
	return s
}

// Authorization is the Authorization header of the newest model request
// ("Bearer <key>" when codex authenticated with an API key).
func (m *OpenAI) Authorization() string {
	s, _ := m.auth.Load().(string)
	return s
}

// StartOpenAI serves the mock on 127.0.0.1 until Close; the provider's
// base_url is URL + "/v1".
func StartOpenAI(text, shell string) (*OpenAI, error) {
	mux := http.NewServeMux()
	srv, err := serve(mux, text, shell)
	if err != nil {
		return nil, err
	}
	m := &OpenAI{server: srv}
	mux.HandleFunc("POST /v1/responses", m.responses)
	// codex's built-in OpenAI provider tries the Responses API over a
	// websocket first; 426 makes it use HTTP at once (a 404 costs five
	// reconnects and a "Falling back from WebSockets" line in the agent text).
	mux.HandleFunc("GET /v1/responses", func(w http.ResponseWriter, r *http.Request) {
		m.note("responses: websocket refused (426)")
		http.Error(w, "use HTTP", http.StatusUpgradeRequired)
	})
	return m, nil
}

// responsesRequest is the part of a Responses API request the mock reads.
type responsesRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Input  []item `json:"input"`
	Tools  []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

// item is an input or output item: a message, a function call or its output.
type item struct {
	Type      string    `json:"type"`
	ID        string    `json:"id,omitempty"`
	Role      string    `json:"role,omitempty"`
	Status    string    `json:"status,omitempty"`
	Content   []content `json:"content,omitempty"`
	CallID    string    `json:"call_id,omitempty"`
	Name      string    `json:"name,omitempty"`
	Arguments string    `json:"arguments,omitempty"`
}

type content struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations,omitempty"`
}

// shellArgs are the arguments of a call to one of codex's shell tools, by
// tool name: exec_command (codex 0.137, in codex-acp 0.16.0) takes a command
// string, the older shell tool an argv. The call asks to run outside the
// sandbox, so codex asks the client (the bridge, the owner) first.
func shellArgs(tool, command string) (string, bool) {
	args := map[string]any{"sandbox_permissions": "require_escalated", "justification": "Run the requested command?"}
	switch tool {
	case "exec_command":
		args["cmd"] = command
	case "shell_command":
		args["command"] = command
	case "shell":
		args["command"] = []string{"bash", "-lc", command}
	default:
		return "", false
	}
	b, _ := json.Marshal(args)
	return string(b), true
}

func (m *OpenAI) responses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !req.Stream {
		m.note("responses: refused, not streaming")
		http.Error(w, "the mock answers streaming requests only", http.StatusBadRequest)
		return
	}
	m.auth.Store(r.Header.Get("Authorization"))
	m.model.Store(req.Model)
	n := m.seq.Add(1)
	var out item
	last := item{}
	if len(req.Input) > 0 {
		last = req.Input[len(req.Input)-1]
	}
	switch {
	case strings.HasSuffix(last.Type, "_call_output"):
		out = m.message(n, "the command ran")
		m.note("responses: after " + last.Type)
	case last.Type == "message" && last.Role == "user" && strings.Contains(inputText(last), "[[shell]]") && m.shellCall(&out, n, req):
		m.note("responses: function_call " + out.Name)
	case last.Type == "message" && last.Role == "user" && strings.Contains(inputText(last), "[[recall]]"):
		var said []string
		for _, it := range req.Input {
			if it.Type == "message" && it.Role == "user" {
				said = append(said, inputText(it))
			}
		}
		out = m.message(n, recall(said))
		m.note("responses: " + recall(said))
	default:
		out = m.message(n, m.Text)
		m.note(fmt.Sprintf("responses: text (model %s, tools=%d)", req.Model, len(req.Tools)))
	}
	streamResponse(w, fmt.Sprintf("resp_mock_%d", n), req.Model, out)
}

// shellCall sets out to a call of the first shell tool the request offers.
func (m *OpenAI) shellCall(out *item, n int64, req responsesRequest) bool {
	for _, t := range req.Tools {
		if args, ok := shellArgs(t.Name, m.ShellCommand); ok && t.Type == "function" {
			*out = item{Type: "function_call", ID: fmt.Sprintf("fc_mock_%d", n), Status: "completed",
				CallID: fmt.Sprintf("call_mock_%d", n), Name: t.Name, Arguments: args}
			return true
		}
	}
	return false
}

func (m *OpenAI) message(n int64, text string) item {
	return item{Type: "message", ID: fmt.Sprintf("msg_mock_%d", n), Role: "assistant", Status: "completed",
		Content: []content{{Type: "output_text", Text: text, Annotations: []any{}}}}
}

func inputText(it item) string {
	var s strings.Builder
	for _, c := range it.Content {
		if c.Type == "input_text" {
			s.WriteString(c.Text)
		}
	}
	return s.String()
}

// streamResponse writes one output item as the Responses API's server-sent
// events: created, the item added, then a message's content part with its
// text in two deltas (codex drops deltas that come before the part is
// added: "OutputTextDelta without active item") or a function call's
// arguments, the item done, and completed with usage.
func streamResponse(w http.ResponseWriter, id, model string, out item) {
	send := sse(w)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		send(typ, fields)
	}
	resp := map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}
	ev("response.created", map[string]any{"response": resp})
	added := out
	added.Status = "in_progress"
	added.Content = nil
	added.Arguments = ""
	addedJSON := asMap(added)
	if out.Type == "message" {
		addedJSON["content"] = []any{} // codex cannot parse a message without content
	} else {
		addedJSON["arguments"] = ""
	}
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": addedJSON})
	if out.Type == "message" {
		text := out.Content[0].Text
		part := func(typ, text string) {
			ev(typ, map[string]any{"item_id": out.ID, "output_index": 0, "content_index": 0,
				"part": content{Type: "output_text", Text: text, Annotations: []any{}}})
		}
		part("response.content_part.added", "")
		half := len(text) / 2
		for _, delta := range []string{text[:half], text[half:]} {
			ev("response.output_text.delta", map[string]any{"item_id": out.ID, "output_index": 0, "content_index": 0, "delta": delta})
		}
		ev("response.output_text.done", map[string]any{"item_id": out.ID, "output_index": 0, "content_index": 0, "text": text})
		part("response.content_part.done", text)
	} else {
		ev("response.function_call_arguments.delta", map[string]any{"item_id": out.ID, "output_index": 0, "delta": out.Arguments})
		ev("response.function_call_arguments.done", map[string]any{"item_id": out.ID, "output_index": 0, "arguments": out.Arguments})
	}
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": out})
	resp["status"] = "completed"
	resp["output"] = []item{out}
	resp["usage"] = map[string]any{"input_tokens": 12, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 17}
	ev("response.completed", map[string]any{"response": resp})
}

func asMap(it item) map[string]any {
	b, _ := json.Marshal(it)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}
