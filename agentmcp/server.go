// Package agentmcp is `hive mcp`: the MCP server (stdio) that hive bridge
// hands to every session of an agent as the server named "hive". It talks
// to the hub as the agent's own key, so it can read no more than the hub's
// read rule lets the agent read, and it is bound to the session's channel
// and to the turn in flight (the thread a reply goes to, the turn's post
// budget), which the bridge writes to a small file before each prompt.
// spec/agents.md ("The hive tools") is the contract.
package agentmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxPostsPerTurn is how many messages and reactions the write tools may
// post in one turn.
const MaxPostsPerTurn = 10

// Page sizes of the read tools.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Turn is what the bridge tells the server about the turn in flight: the
// file at Config.TurnFile holds it as JSON.
type Turn struct {
	ID      string `json:"turn"`     // the turn's id (its newest mention)
	Channel string `json:"channel"`  // the session's channel
	Thread  string `json:"thread"`   // the thread the turn answers in (root id)
	ReplyTo string `json:"reply_to"` // the mention a reply answers
	Hops    int    `json:"hops"`     // the hops tag of the bridge's reply
}

// Config binds a server to one agent session.
type Config struct {
	Client   *client.Client
	Channel  string // the session's channel id
	TurnFile string // the bridge's turn file ("" : no current thread)
	Write    bool   // post_message and react are offered
	// WriteChannels are the channel ids the write tools may post in
	// besides the turn's own ("*": every channel the hub lets the agent
	// write in): the config's hive_tools_write_channels.
	WriteChannels []string
}

// Server is one `hive mcp` process's state.
type Server struct {
	cfg   Config
	mu    sync.Mutex
	posts map[string]int      // turn id -> posts made, without a turn file (else budget.go)
	chans map[string]resolved // channel argument -> what it resolved to
}

// New is a server for cfg.
func New(cfg Config) *Server {
	return &Server{cfg: cfg, posts: map[string]int{}, chans: map[string]resolved{}}
}

// Serve runs the MCP protocol on t until the client goes away or ctx ends.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hive", Version: "1"}, nil)
	s.addReadTools(srv)
	if s.cfg.Write {
		s.addWriteTools(srv)
	}
	return srv.Run(ctx, t)
}

// turn reads the bridge's turn file (a zero Turn when there is none).
func (s *Server) turn() Turn {
	t := Turn{Channel: s.cfg.Channel}
	if s.cfg.TurnFile == "" {
		return t
	}
	b, err := os.ReadFile(s.cfg.TurnFile)
	if err != nil {
		return t
	}
	json.Unmarshal(b, &t)
	if t.Channel == "" {
		t.Channel = s.cfg.Channel
	}
	return t
}

// WriteTurn writes t to path for the server (0600, replaced atomically).
func WriteTurn(path string, t Turn) error {
	b, _ := json.Marshal(t)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// hubErr is a tool error with the hub's reason, when it gave one.
func hubErr(what string, err error) error {
	var re *client.RefusedError
	if errors.As(err, &re) {
		return fmt.Errorf("%s: the hub refused: %s", what, re.Reason)
	}
	return fmt.Errorf("%s: %v", what, err)
}

// text is a tool result of plain text.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// listText is a tool's answer that lists items, an entry each, or says none
// when there are none.
func listText[T any](items []T, none string, entry func(T) string) *mcp.CallToolResult {
	if len(items) == 0 {
		return text(none)
	}
	lines := make([]string, len(items))
	for i, it := range items {
		lines[i] = entry(it)
	}
	return text(strings.Join(lines, "\n"))
}

// rowLine is one message as the tools show it.
func rowLine(n *chat.Names, r chat.Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s %s at %s, event %s", n.Name(r.Author), chat.ShortNpub(r.Author), r.CreatedAt.Time().UTC().Format(time.RFC3339), r.ID)
	if r.Root != "" {
		fmt.Fprintf(&b, ", in thread %s", r.Root)
	}
	if r.Edited {
		b.WriteString(", edited")
	}
	if r.Replies > 0 {
		fmt.Fprintf(&b, ", %d replies", r.Replies)
	}
	for _, re := range r.Reactions {
		fmt.Fprintf(&b, ", %s %d", re.Emoji, re.Count)
	}
	b.WriteString("]\n")
	if r.Deleted {
		b.WriteString("(deleted)")
	} else {
		b.WriteString(r.Text)
	}
	return b.String()
}

// rowsText lists rows, with the paging hint when more are older.
func rowsText(n *chat.Names, rows []chat.Row, more bool) string {
	if len(rows) == 0 {
		return "(no messages)"
	}
	lines := make([]string, 0, len(rows)+1)
	if more {
		lines = append(lines, fmt.Sprintf("(older messages: call again with before = %q)", rows[0].ID))
	}
	for _, r := range rows {
		lines = append(lines, rowLine(n, r))
	}
	return strings.Join(lines, "\n")
}

// limit applies the page size rule.
func limit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	return min(n, MaxLimit)
}
