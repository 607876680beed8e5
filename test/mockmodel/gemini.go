package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Gemini is a running mock of the Gemini API (generativelanguage v1beta), as
// gemini-cli calls it with GOOGLE_GEMINI_BASE_URL.
type Gemini struct {
	*server
}

// StartGemini serves the mock on 127.0.0.1 until Close; URL is the value
// for GOOGLE_GEMINI_BASE_URL.
func StartGemini(text, shell string) (*Gemini, error) {
	mux := http.NewServeMux()
	srv, err := serve(mux, text, shell)
	if err != nil {
		return nil, err
	}
	m := &Gemini{server: srv}
	// {model}:generateContent and {model}:streamGenerateContent?alt=sse
	mux.HandleFunc("POST /v1beta/models/{call}", m.generate)
	return m, nil
}

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	FunctionCall     *geminiCall     `json:"functionCall,omitempty"`
	FunctionResponse json.RawMessage `json:"functionResponse,omitempty"`
}

type geminiCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string         `json:"responseMimeType"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
		ResponseSchema     map[string]any `json:"responseSchema"`
	} `json:"generationConfig"`
}

func (m *Gemini) generate(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(r.PathValue("call"), ":")
	if method != "generateContent" && method != "streamGenerateContent" {
		m.note("unhandled " + r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req geminiRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var parts []geminiPart
	var last []geminiPart
	if n := len(req.Contents); n > 0 {
		last = req.Contents[n-1].Parts
	}
	switch {
	case req.GenerationConfig.ResponseMimeType == "application/json":
		// gemini-cli's helper calls (the model router's complexity score,
		// the next-speaker check) want JSON of a schema: fill it in.
		schema := req.GenerationConfig.ResponseJSONSchema
		if schema == nil {
			schema = req.GenerationConfig.ResponseSchema
		}
		b, _ := json.Marshal(fillSchema(schema))
		parts = []geminiPart{{Text: string(b)}}
		m.note(fmt.Sprintf("%s %s: json %s", model, method, b))
	case hasGeminiResponse(last):
		parts = []geminiPart{{Text: "the command ran"}}
		m.note(fmt.Sprintf("%s %s: after functionResponse", model, method))
	case strings.Contains(geminiText(last), "[[shell]]") && m.offers(req, "run_shell_command"):
		parts = []geminiPart{{FunctionCall: &geminiCall{Name: "run_shell_command",
			Args: map[string]any{"command": m.ShellCommand, "description": "Run the requested command"}}}}
		m.note(fmt.Sprintf("%s %s: functionCall run_shell_command", model, method))
	default:
		parts = []geminiPart{{Text: m.Text}}
		m.note(fmt.Sprintf("%s %s: text", model, method))
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]int{"promptTokenCount": 12, "candidatesTokenCount": 5, "totalTokenCount": 17},
		"modelVersion":  model,
	}
	if method == "generateContent" {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
		return
	}
	b, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

func (m *Gemini) offers(req geminiRequest, tool string) bool {
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			if f.Name == tool {
				return true
			}
		}
	}
	return false
}

func hasGeminiResponse(parts []geminiPart) bool {
	for _, p := range parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

func geminiText(parts []geminiPart) string {
	var s strings.Builder
	for _, p := range parts {
		s.WriteString(p.Text)
	}
	return s.String()
}

// fillSchema returns a value that satisfies a (Gemini-style) JSON schema:
// the first enum value, 10 for numbers, false, empty lists, "mock".
func fillSchema(schema map[string]any) any {
	if enum, _ := schema["enum"].([]any); len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	switch strings.ToUpper(typ) {
	case "OBJECT":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, v := range props {
			sub, _ := v.(map[string]any)
			out[k] = fillSchema(sub)
		}
		return out
	case "INTEGER", "NUMBER":
		return 10
	case "BOOLEAN":
		return false
	case "ARRAY":
		return []any{}
	}
	return "mock"
}
