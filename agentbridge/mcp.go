package agentbridge

import (
	"encoding/json"
	"fmt"
	"log/slog"
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

// hiveTools is the bridge's own MCP server as every session of the agent
// gets it (unless the config says hive_tools = false): the command that
// runs `hive mcp`, and the files in the agent's state directory that it
// reads. It holds nothing that changes.
type hiveTools struct {
	enabled bool     // sessions get the "hive" MCP server
	command []string // the hive binary and "mcp"
	dir     string   // the agent's state directory
	target  Target
	cfg     *AgentConfig
	keys    identity.Keys
	log     *slog.Logger
}

// mcpKeyFile is the agent key as `hive mcp` reads it: a plain key file,
// mode 0600, in the agent's state directory (never in an environment
// variable, which the agent's shell could read).
func (ht *hiveTools) mcpKeyFile() string { return filepath.Join(ht.dir, "mcp.key") }

// turnFile is where the bridge tells a channel's `hive mcp` the turn in flight.
func (ht *hiveTools) turnFile(channel string) string {
	return filepath.Join(ht.dir, "turn-"+channel+".json")
}

// writeMCPKey writes the agent's key for `hive mcp` (replacing an older one).
func (ht *hiveTools) writeMCPKey() error {
	path := ht.mcpKeyFile()
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("state_dir: %w", err)
	}
	if err := identity.SaveKeyFile(path, ht.keys, identity.SaveOptions{}); err != nil {
		return fmt.Errorf("state_dir: writing the key file of the hive tools: %w", err)
	}
	return nil
}

// mcpServers are the MCP servers of a session in channel: the config's,
// then the bridge's own "hive" server bound to the channel.
func (ht *hiveTools) mcpServers(channel string) []acp.McpServer {
	out := []acp.McpServer{}
	for _, m := range ht.cfg.MCPServers {
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
	if ht.enabled {
		args := append(slices.Clone(ht.command[1:]), "--hub", ht.target.URLs[0], "--key", ht.mcpKeyFile(), "--tag", ht.cfg.Attestation,
			"--channel", channel, "--turn", ht.turnFile(channel))
		if ht.target.Pin != "" {
			args = append(args, "--pin", ht.target.Pin)
		}
		if ht.cfg.HiveToolsWrite {
			args = append(args, "--write")
		}
		for _, ch := range ht.cfg.HiveToolsWriteChannels {
			args = append(args, "--write-channel", ch)
		}
		out = append(out, acp.McpServer{Stdio: &acp.McpServerStdio{Name: hiveServer, Command: ht.command[0], Args: args, Env: []acp.EnvVariable{}}})
	}
	return out
}

// writeTurn tells the channel's `hive mcp` which turn is in flight: the
// thread a post_message goes to, the hops its posts carry, the budget.
func (ht *hiveTools) writeTurn(t *turn) {
	if !ht.enabled {
		return
	}
	m := target(t.batch)
	tu := agentmcp.Turn{ID: t.id, Channel: t.channel}
	if m != nil {
		tu.Thread, tu.ReplyTo = rootOf(m), m.ID
	}
	tu.Hops, _ = strconv.Atoi(hopsTag(t.batch)[1])
	if err := os.RemoveAll(agentmcp.PostsDir(ht.turnFile(t.channel))); err != nil { // the last turn's posts
		ht.log.Warn("could not reset the post budget of the hive tools", "channel", t.channel, "err", err)
	}
	if err := agentmcp.WriteTurn(ht.turnFile(t.channel), tu); err != nil {
		ht.log.Warn("could not write the turn file of the hive tools", "channel", t.channel, "err", err)
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
