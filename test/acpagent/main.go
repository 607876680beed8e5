// Command acpagent is a scripted ACP agent for hive's bridge tests, built on
// acp-go-sdk's agent side. It has no model: cues in the prompt text drive it.
//
//	[[think]]          send a thought chunk
//	[[tool]]           a tool call that completes
//	[[permission]]     a pending tool call and session/request_permission
//	[[crash-once]]     exit mid-turn, once per session (a marker file in ACPAGENT_DIR)
//	[[crash]]          exit mid-turn, every time
//	[[hang]]           stop responding (ignores session/cancel)
//	[[slow:DUR]]       wait DUR before answering (session/cancel ends it)
//	[[steerable:DUR]]  wait up to DUR for a _session/steering text, then answer
//	[[until-steer:DUR]] wait up to DUR until a steer arrives, without taking it
//	[[recall]]         answer with every [[remember:X]] word of the session so far
//
// The answer is "heard N: <content of each block> | ..." in three chunks.
// Sessions persist to ACPAGENT_DIR/<id>.json; session/load replays them.
// A block of the bridge's prompt context ("[context: ...") is not part of
// the answer or its cues; [[context]] answers with it instead.
// ACPAGENT_STEERING=1 advertises _meta.steering.supported. A steer injected
// into a turn that does not take it ([[steerable]]) is answered after that
// turn's prompt returns, in a turn of the agent's own that no prompt asked
// for (claude-agent-acp's detached turn); ACPAGENT_STEER=newturn answers
// every steer "startedNewTurn" and does the same (an adapter that ignores
// idleBehavior). ACPAGENT_NO_LOAD=1
// hides loadSession; ACPAGENT_LOAD_DELAY=DUR makes session/load take DUR; ACPAGENT_LOG appends "<first line of prompt> <unixnano>
// <unixnano>" per prompt (for the benchmark): when the Prompt handler ran, and
// when the read from stdin that brought the session/prompt line returned.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

type session struct {
	History []string `json:"history"`
	cancel  context.CancelFunc
	// cancelledAt is when a cancel came with no prompt running
	cancelledAt time.Time
	steer       chan string
	steered     chan struct{} // poked when a steer arrives
}

type agent struct {
	conn  *acp.AgentSideConnection
	dir   string
	logf  *os.File
	stdin stampReader

	mu       sync.Mutex
	sessions map[string]*session
}

var cueRe = regexp.MustCompile(`\[\[([a-z-]+)(?::([^\]]*))?\]\]`)

func main() {
	dir := os.Getenv("ACPAGENT_DIR")
	if dir == "" {
		dir = ".acpagent"
	}
	os.MkdirAll(dir, 0o755)
	a := &agent{dir: dir, sessions: map[string]*session{}, stdin: stampReader{r: os.Stdin}}
	if p := os.Getenv("ACPAGENT_LOG"); p != "" {
		a.logf, _ = os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	}
	a.conn = acp.NewAgentSideConnection(a, os.Stdout, &a.stdin)
	<-a.conn.Done()
}

// stampReader is stdin, noting when a read brings a session/prompt request.
type stampReader struct {
	r      io.Reader
	prompt atomic.Int64 // unix nanos
}

func (s *stampReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if bytes.Contains(p[:n], []byte(`"session/prompt"`)) {
		s.prompt.Store(time.Now().UnixNano())
	}
	return n, err
}

func (a *agent) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	res := acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: os.Getenv("ACPAGENT_NO_LOAD") == ""},
		AgentInfo:         &acp.Implementation{Name: "hive-scripted-agent", Version: "1"}}
	if os.Getenv("ACPAGENT_STEERING") != "" {
		res.Meta = map[string]any{"steering": map[string]any{"supported": true}}
	}
	return res, nil
}

func (a *agent) Authenticate(ctx context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	b := make([]byte, 8)
	rand.Read(b)
	id := "s-" + hex.EncodeToString(b)
	a.mu.Lock()
	a.sessions[id] = &session{steer: make(chan string, 4), steered: make(chan struct{}, 4)}
	a.mu.Unlock()
	a.save(id)
	return acp.NewSessionResponse{SessionId: acp.SessionId(id),
		Modes: &acp.SessionModeState{CurrentModeId: "default", AvailableModes: []acp.SessionMode{{Id: "default", Name: "default"}, {Id: "careful", Name: "careful"}}}}, nil
}

func (a *agent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	id := string(p.SessionId)
	b, err := os.ReadFile(filepath.Join(a.dir, filepath.Base(id)+".json"))
	if err != nil {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": "no such session " + id})
	}
	if d, err := time.ParseDuration(os.Getenv("ACPAGENT_LOAD_DELAY")); err == nil {
		time.Sleep(d)
	}
	s := &session{steer: make(chan string, 4), steered: make(chan struct{}, 4)}
	if err := json.Unmarshal(b, s); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	for _, h := range s.History { // the replay arrives before the response
		a.update(ctx, id, acp.UpdateUserMessageText(h))
		a.update(ctx, id, acp.UpdateAgentMessageText("(replayed) "+h))
	}
	return acp.LoadSessionResponse{}, nil
}

// save replaces the session's file atomically (a temporary file, then a
// rename), as a real agent keeps its sessions: a kill mid-write (the
// bridge's death signal) leaves the previous file, not an empty one.
func (a *agent) save(id string) {
	a.mu.Lock()
	b, _ := json.Marshal(a.sessions[id])
	a.mu.Unlock()
	f, err := os.CreateTemp(a.dir, id+".*.tmp")
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if f.Close() != nil || err != nil {
		os.Remove(f.Name())
		return
	}
	os.Rename(f.Name(), filepath.Join(a.dir, id+".json"))
}

func (a *agent) update(ctx context.Context, id string, u acp.SessionUpdate) {
	a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: acp.SessionId(id), Update: u})
}

func (a *agent) Cancel(ctx context.Context, p acp.CancelNotification) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[string(p.SessionId)]; s != nil {
		if s.cancel != nil {
			s.cancel()
		} else {
			// acp-go-sdk serves messages concurrently: a cancel sent just
			// after a prompt can arrive before that prompt's handler starts
			s.cancelledAt = time.Now()
		}
	}
	return nil
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	id := string(p.SessionId)
	a.mu.Lock()
	s := a.sessions[id]
	if s == nil {
		a.mu.Unlock()
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session " + id})
	}
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	if time.Since(s.cancelledAt) < time.Second {
		cancel() // its cancel came first
	}
	s.cancelledAt = time.Time{}
	a.mu.Unlock()
	defer func() {
		cancel()
		a.mu.Lock()
		s.cancel = nil
		a.mu.Unlock()
	}()

	var contents []string
	var all strings.Builder
	logged, promptCtx := false, ""
	for _, b := range p.Prompt {
		if b.Text == nil {
			continue
		}
		t := b.Text.Text
		if strings.HasPrefix(t, "[context:") { // the bridge's context block: shown only by [[context]]
			promptCtx = t
			continue
		}
		all.WriteString(t + "\n")
		if a.logf != nil && !logged && strings.HasPrefix(t, "[mention by") { // not the context block
			logged = true
			first, _, _ := strings.Cut(t, "\n")
			fmt.Fprintf(a.logf, "%s %d %d\n", first, time.Now().UnixNano(), a.stdin.prompt.Load())
		}
		if _, body, ok := strings.Cut(t, "\n"); ok {
			t = body
		}
		contents = append(contents, strings.TrimSpace(t))
	}
	a.mu.Lock()
	prior := append([]string(nil), s.History...)
	s.History = append(s.History, contents...)
	a.mu.Unlock()
	a.save(id)

	answer := fmt.Sprintf("heard %d: %s", len(contents), strings.Join(contents, " | "))
	cancelled := func() (acp.PromptResponse, error) {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	for _, m := range cueRe.FindAllStringSubmatch(all.String(), -1) {
		switch m[1] {
		case "think":
			a.update(ctx, id, acp.UpdateAgentThoughtText("thinking about it"))
		case "tool":
			a.update(ctx, id, acp.StartToolCall("t-read", "read a file", acp.WithStartKind(acp.ToolKindRead), acp.WithStartStatus(acp.ToolCallStatusPending)))
			a.update(ctx, id, acp.UpdateToolCall("t-read", acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
		case "permission":
			a.update(ctx, id, acp.StartToolCall("t-shell", "run a shell command", acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusPending)))
			res, err := a.conn.RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: p.SessionId,
				ToolCall: acp.ToolCallUpdate{ToolCallId: "t-shell", Title: acp.Ptr("run a shell command")},
				Options: []acp.PermissionOption{{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
					{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"}}})
			switch {
			case err != nil:
				answer = "permission: error " + err.Error()
			case res.Outcome.Selected != nil:
				answer = "permission: " + string(res.Outcome.Selected.OptionId)
			default:
				answer = "permission: cancelled"
			}
			status := acp.ToolCallStatusFailed
			if strings.HasSuffix(answer, "allow") {
				status = acp.ToolCallStatusCompleted
			}
			a.update(ctx, id, acp.UpdateToolCall("t-shell", acp.WithUpdateStatus(status)))
		case "crash-once":
			marker := filepath.Join(a.dir, "crashed-"+id)
			if _, err := os.Stat(marker); err != nil {
				os.WriteFile(marker, nil, 0o644)
				a.update(ctx, id, acp.UpdateAgentMessageText("about to crash"))
				os.Exit(3)
			}
		case "crash":
			a.update(ctx, id, acp.UpdateAgentMessageText("about to crash"))
			os.Exit(3)
		case "hang":
			select {}
		case "slow":
			d, _ := time.ParseDuration(m[2])
			select {
			case <-ctx.Done():
				return cancelled()
			case <-time.After(d):
			}
		case "until-steer":
			d, _ := time.ParseDuration(m[2])
			select {
			case <-ctx.Done():
				return cancelled()
			case <-s.steered:
			case <-time.After(d):
			}
		case "steerable":
			d, _ := time.ParseDuration(m[2])
			a.update(ctx, id, acp.UpdateAgentThoughtText("waiting for steering"))
			select {
			case <-ctx.Done():
				return cancelled()
			case txt := <-s.steer:
				answer += " steered: " + txt
			case <-time.After(d):
			}
		case "context":
			answer = "context: " + promptCtx
		case "recall":
			var words []string
			for _, h := range prior {
				for _, r := range cueRe.FindAllStringSubmatch(h, -1) {
					if r[1] == "remember" {
						words = append(words, r[2])
					}
				}
			}
			answer = "recall: " + strings.Join(words, ",")
		}
	}
	if ctx.Err() != nil {
		return cancelled()
	}
	a.say(ctx, id, answer)
	for { // steers this turn did not take: answered after it, on the agent's own
		select {
		case txt := <-s.steer:
			go a.detached(id, s, txt)
			continue
		default:
		}
		break
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// say sends text as three agent message chunks.
func (a *agent) say(ctx context.Context, id, text string) {
	third := len(text) / 3
	for _, part := range []string{text[:third], text[third : 2*third], text[2*third:]} {
		a.update(ctx, id, acp.UpdateAgentMessageText(part))
	}
}

// detached answers a steer in a turn no prompt asked for, once the session's
// running prompt (if any) has returned: updates with no response.
func (a *agent) detached(id string, s *session, text string) {
	for i := 0; i < 1500; i++ {
		a.mu.Lock()
		running := s.cancel != nil
		a.mu.Unlock()
		if !running {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	ctx := context.Background()
	a.update(ctx, id, acp.UpdateAgentThoughtText("a turn of my own"))
	a.say(ctx, id, "answer to the steer: "+text)
}

// HandleExtensionMethod implements _session/steering.
func (a *agent) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method != "_session/steering" || os.Getenv("ACPAGENT_STEERING") == "" {
		return nil, acp.NewMethodNotFound(method)
	}
	var p struct {
		SessionID string             `json:"sessionId"`
		Prompt    []acp.ContentBlock `json:"prompt"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s, running := a.awaitPrompt(ctx, p.SessionID)
	if s == nil {
		return nil, acp.NewInvalidParams(map[string]any{"error": "unknown session"})
	}
	text := ""
	for _, b := range p.Prompt {
		if b.Text != nil {
			text += b.Text.Text
		}
	}
	defer func() {
		select {
		case s.steered <- struct{}{}:
		default:
		}
	}()
	if os.Getenv("ACPAGENT_STEER") == "newturn" {
		go a.detached(p.SessionID, s, text)
		return map[string]any{"outcome": "startedNewTurn"}, nil
	}
	if !running {
		return map[string]any{"outcome": "promptRequired"}, nil
	}
	select {
	case s.steer <- text:
		return map[string]any{"outcome": "injected"}, nil
	default:
		return map[string]any{"outcome": "promptRequired"}, nil
	}
}

// awaitPrompt returns the session and whether a prompt of it is running.
// acp-go-sdk serves requests concurrently, so a steer the client sent just
// after a prompt can be handled before that prompt's handler starts: an
// idle session is given a moment for it, as a real agent that reads its
// input in order would see the prompt first.
func (a *agent) awaitPrompt(ctx context.Context, id string) (*session, bool) {
	deadline := time.Now().Add(time.Second)
	for {
		a.mu.Lock()
		s := a.sessions[id]
		running := s != nil && s.cancel != nil
		a.mu.Unlock()
		if s == nil || running || time.Now().After(deadline) || ctx.Err() != nil {
			return s, running
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (a *agent) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (a *agent) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	if p.ModeId != "default" && p.ModeId != "careful" {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown mode " + string(p.ModeId)})
	}
	return acp.SetSessionModeResponse{}, nil
}
