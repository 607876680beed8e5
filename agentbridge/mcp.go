package agentbridge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ainb/hive/agentmcp"
	"github.com/ainb/hive/identity"
	acp "github.com/coder/acp-go-sdk"
)

// hiveServer is the name of the bridge's own MCP server in every session.
const hiveServer = "hive"

// mcpKeyFile is the agent key as `hive mcp` reads it: a plain key file,
// mode 0600, in the agent's state directory (never in an environment
// variable, which the agent's shell could read).
func (r *runner) mcpKeyFile() string { return filepath.Join(r.state.Dir(), "mcp.key") }

// turnFile is where the bridge tells a channel's `hive mcp` the turn in flight.
func (r *runner) turnFile(channel string) string {
	return filepath.Join(r.state.Dir(), "turn-"+channel+".json")
}

// writeMCPKey writes the agent's key for `hive mcp` (replacing an older one).
func (r *runner) writeMCPKey() error {
	path := r.mcpKeyFile()
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("state_dir: %w", err)
	}
	if err := identity.SaveKeyFile(path, r.keys, identity.SaveOptions{}); err != nil {
		return fmt.Errorf("state_dir: writing the key file of the hive tools: %w", err)
	}
	return nil
}

// mcpServers are the MCP servers of a session in channel: the config's,
// then the bridge's own "hive" server bound to the channel.
func (r *runner) mcpServers(channel string) []acp.McpServer {
	out := []acp.McpServer{}
	for _, m := range r.cfg.MCPServers {
		env := []acp.EnvVariable{}
		for k, v := range m.Env {
			env = append(env, acp.EnvVariable{Name: k, Value: v})
		}
		args := m.Args
		if args == nil {
			args = []string{}
		}
		out = append(out, acp.McpServer{Stdio: &acp.McpServerStdio{Name: m.Name, Command: m.Command, Args: args, Env: env}})
	}
	if r.hiveMCP {
		args := append(slices.Clone(r.opt.MCP[1:]), "--hub", r.link.target.URLs[0], "--key", r.mcpKeyFile(), "--tag", r.cfg.Attestation,
			"--channel", channel, "--turn", r.turnFile(channel))
		if r.link.target.Pin != "" {
			args = append(args, "--pin", r.link.target.Pin)
		}
		if r.cfg.HiveToolsWrite {
			args = append(args, "--write")
		}
		for _, ch := range r.cfg.HiveToolsWriteChannels {
			args = append(args, "--write-channel", ch)
		}
		out = append(out, acp.McpServer{Stdio: &acp.McpServerStdio{Name: hiveServer, Command: r.opt.MCP[0], Args: args, Env: []acp.EnvVariable{}}})
	}
	return out
}

// writeTurn tells the channel's `hive mcp` which turn is in flight: the
// thread a post_message goes to, the hops its posts carry, the budget.
func (r *runner) writeTurn(t *turn) {
	if !r.hiveMCP {
		return
	}
	m := target(t.batch)
	tu := agentmcp.Turn{ID: t.id, Channel: t.channel}
	if m != nil {
		tu.Thread, tu.ReplyTo = rootOf(m), m.ID
	}
	tu.Hops, _ = strconv.Atoi(hopsTag(t.batch)[1])
	if err := os.RemoveAll(agentmcp.PostsDir(r.turnFile(t.channel))); err != nil { // the last turn's posts
		r.log.Warn("could not reset the post budget of the hive tools", "channel", t.channel, "err", err)
	}
	if err := agentmcp.WriteTurn(r.turnFile(t.channel), tu); err != nil {
		r.log.Warn("could not write the turn file of the hive tools", "channel", t.channel, "err", err)
	}
}

// hiveReadTool reports whether a permission request is for one of the
// hive server's read tools, which the bridge allows itself: they can do no
// more than the agent key may, inside the hub's read rule.
func hiveReadTool(req acp.RequestPermissionRequest) bool {
	names := []string{}
	if req.ToolCall.Title != nil {
		names = append(names, *req.ToolCall.Title)
	}
	if raw, err := json.Marshal(req.ToolCall.Meta); err == nil {
		names = append(names, string(raw))
	}
	for _, n := range names {
		for _, tool := range agentmcp.ReadTools() {
			if strings.Contains(n, "mcp__"+hiveServer+"__"+tool) {
				return true
			}
		}
	}
	return false
}
