package agentbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// AgentInfo is what an agent told us in initialize. Capabilities are only
// what the agent declared; none is inferred from a successful call.
type AgentInfo struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Protocol    int    `json:"protocol"`
	LoadSession bool   `json:"load_session"`
	Steering    bool   `json:"steering"` // _meta.steering.supported
	// CloseSession is agentCapabilities.sessionCapabilities.close.
	CloseSession bool `json:"close_session"`
}

// procEvents receives what an agent sends on its own initiative.
type procEvents interface {
	sessionUpdate(p *agentProc, n acp.SessionNotification)
	requestPermission(ctx context.Context, p *agentProc, rpcID json.RawMessage, req acp.RequestPermissionRequest) acp.RequestPermissionResponse
	// permissionSeen is called from the raw stream, before the SDK handles
	// the request, so an answer can never arrive before the request is known.
	permissionSeen(session string, rpcID json.RawMessage, options []acp.PermissionOption, line []byte)
	// routeLine sees every raw line, both directions, in wire order.
	routeLine(p *agentProc, dir string, line []byte)
}

// agentProc is a running ACP agent: the child process and its connection.
type agentProc struct {
	*proc
	conn   *acp.ClientSideConnection
	info   AgentInfo
	events procEvents

	mu      sync.Mutex
	permIDs map[string][]json.RawMessage // session+toolCallId -> JSON-RPC ids, from the raw stream
}

// startAgent spawns command, wires the ACP connection and runs initialize.
func startAgent(ctx context.Context, command []string, dir string, env map[string]string, authMethod string, stderr io.Writer, ev procEvents) (*agentProc, error) {
	a := &agentProc{events: ev, permIDs: map[string][]json.RawMessage{}}
	p, err := spawn(command, dir, env, stderr, a.onLine)
	if err != nil {
		return nil, err
	}
	a.proc = p
	a.conn = acp.NewClientSideConnection(acpClient{a}, p, p.sdkIn)
	a.conn.SetLogger(slog.New(slog.DiscardHandler))
	ictx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := a.conn.Initialize(ictx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{},
		ClientInfo:         &acp.Implementation{Name: "hive-bridge", Version: "1"},
	})
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	a.info = AgentInfo{Protocol: int(res.ProtocolVersion), LoadSession: res.AgentCapabilities.LoadSession,
		Steering:     steeringSupported(res.Meta) || steeringSupported(res.AgentCapabilities.Meta),
		CloseSession: res.AgentCapabilities.SessionCapabilities.Close != nil}
	if res.AgentInfo != nil {
		a.info.Name, a.info.Version = res.AgentInfo.Name, res.AgentInfo.Version
	}
	if authMethod != "" {
		if _, err := a.conn.Authenticate(ictx, acp.AuthenticateRequest{MethodId: authMethod}); err != nil {
			p.kill()
			var offered []string
			for _, m := range res.AuthMethods {
				offered = append(offered, authMethodID(m))
			}
			return nil, fmt.Errorf("authenticate %q: %s (the agent offers %v)", authMethod, errText(err), offered)
		}
	}
	return a, nil
}

func steeringSupported(meta map[string]any) bool {
	st, _ := meta["steering"].(map[string]any)
	v, _ := st["supported"].(bool)
	return v
}

// onLine sees every raw line before the SDK: it records the JSON-RPC id of
// each session/request_permission (the SDK hides it) and feeds the observer.
func (a *agentProc) onLine(dir string, line []byte) {
	if dir == "in" {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				SessionID string `json:"sessionId"`
				ToolCall  struct {
					ToolCallID string `json:"toolCallId"`
				} `json:"toolCall"`
				Options []acp.PermissionOption `json:"options"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == acp.ClientMethodSessionRequestPermission && len(m.ID) > 0 {
			k := m.Params.SessionID + "\x00" + m.Params.ToolCall.ToolCallID
			a.mu.Lock()
			a.permIDs[k] = append(a.permIDs[k], append(json.RawMessage(nil), m.ID...))
			a.mu.Unlock()
			a.events.permissionSeen(m.Params.SessionID, m.ID, m.Params.Options, line)
		}
	}
	a.events.routeLine(a, dir, line)
}

// takePermID returns the raw JSON-RPC id recorded for a permission request.
func (a *agentProc) takePermID(session, toolCall string) json.RawMessage {
	k := session + "\x00" + toolCall
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := a.permIDs[k]
	if len(ids) == 0 {
		return nil
	}
	id := ids[0]
	if len(ids) == 1 {
		delete(a.permIDs, k)
	} else {
		a.permIDs[k] = ids[1:]
	}
	return id
}

// acpClient is the acp.Client the SDK calls. The bridge offers no file system
// or terminal: agents use their own tools, and such requests get -32601.
type acpClient struct{ a *agentProc }

func (c acpClient) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	c.a.events.sessionUpdate(c.a, n)
	return nil
}

func (c acpClient) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	id := c.a.takePermID(string(req.SessionId), string(req.ToolCall.ToolCallId))
	return c.a.events.requestPermission(ctx, c.a, id, req), nil
}

func (acpClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}

func (acpClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}

func (acpClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (acpClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (acpClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (acpClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (acpClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}

// authMethodID is an auth method's id, whatever its variant.
func authMethodID(m acp.AuthMethod) string {
	b, _ := json.Marshal(m)
	var v struct {
		ID string `json:"id"`
	}
	json.Unmarshal(b, &v)
	return v.ID
}
