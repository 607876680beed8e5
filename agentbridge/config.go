// Package agentbridge runs `hive bridge`: a pool of ACP agents (any agent
// speaking the Agent Client Protocol on stdio) that answer mentions on a hive
// hub as signed events from the agent's own key, stream every raw ACP message
// to the agent's owner as NIP-44 observer frames, ask the owner before risky
// tool calls, and resume their sessions after a crash. spec/agents.md is the
// contract.
package agentbridge

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
)

// Config is the bridge's TOML file (spec/agents.md).
type Config struct {
	Hub      string        `toml:"hub"`
	Pin      string        `toml:"pin"`
	StateDir string        `toml:"state_dir"`
	Agents   []AgentConfig `toml:"agent"`

	dir string // directory of the file: relative paths are resolved against it
}

// AgentConfig is one [[agent]] table.
type AgentConfig struct {
	Name              string            `toml:"name"`
	Key               string            `toml:"key"`
	Attestation       string            `toml:"attestation"`
	Command           []string          `toml:"command"`
	Cwd               string            `toml:"cwd"`
	Env               map[string]string `toml:"env"`
	Processes         int               `toml:"processes"`
	Mode              string            `toml:"mode"`
	Model             string            `toml:"model"`
	Answer            any               `toml:"answer"`
	Permissions       string            `toml:"permissions"`
	PermissionTimeout string            `toml:"permission_timeout"`
	TurnTimeout       string            `toml:"turn_timeout"`
	IdleTimeout       string            `toml:"idle_timeout"`
	MCPServers        []MCPServer       `toml:"mcp_servers"`
	AuthMethod        string            `toml:"auth_method"`
	Context           string            `toml:"context"`
	ContextMessages   int               `toml:"context_messages"`
	ContextBytes      int               `toml:"context_bytes"`
	HiveTools         *bool             `toml:"hive_tools"`
	HiveToolsWrite    bool              `toml:"hive_tools_write"`
	// HiveToolsWriteChannels are channel ids the write tools may post in
	// besides the turn's own ("*": any the hub allows).
	HiveToolsWriteChannels []string `toml:"hive_tools_write_channels"`
	Persona                string   `toml:"persona"`

	persona                           *Persona // the persona file's, when set
	answer                            Answer
	permTimeout, turnTimeout, idleTTL time.Duration
}

// MCPServer is a stdio MCP server handed to session/new.
type MCPServer struct {
	Name    string            `toml:"name"`
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
}

// Answer is the parsed `answer` gate: whose mentions get an answer.
type Answer struct {
	Owner   bool            // "owner"
	Members bool            // "members": any hub member
	Keys    map[string]bool // explicit hex pubkeys
}

// Permission policies.
const (
	PermAsk   = "ask"
	PermAllow = "allow"
	PermDeny  = "deny"
)

// MaxProcesses bounds processes per agent.
const MaxProcesses = 32

// LoadConfig reads and validates a config file. Errors name the key and the fix.
func LoadConfig(path string) (*Config, error) {
	var c Config
	if err := client.LoadConfig(path, &c, &c.dir, "see spec/agents.md for the keys", c.validate); err != nil {
		return nil, err
	}
	return &c, nil
}

// Resolve makes p absolute relative to the config file's directory.
func (c *Config) Resolve(p string) string { return client.ResolveIn(c.dir, p) }

func (c *Config) validate() error {
	if c.Hub == "" {
		return errors.New(`hub is required: the hub URL, e.g. hub = "ws://127.0.0.1:7447"`)
	}
	if c.StateDir == "" {
		c.StateDir = "bridge-state"
	}
	if len(c.Agents) == 0 {
		return errors.New("no [[agent]] table: add one with name, key, attestation and command")
	}
	seen := map[string]bool{}
	for i := range c.Agents {
		a := &c.Agents[i]
		if a.Persona != "" {
			a.Persona = c.Resolve(a.Persona)
			if err := a.applyPersona(a.Persona); err != nil {
				return fmt.Errorf("agent %q: %w", a.Name, err)
			}
		}
		if err := a.validate(); err != nil {
			if a.Name != "" {
				return fmt.Errorf("agent %q: %w", a.Name, err)
			}
			return fmt.Errorf("agent #%d: %w", i+1, err)
		}
		if seen[a.Name] {
			return fmt.Errorf("agent %q is defined twice: names must be unique", a.Name)
		}
		seen[a.Name] = true
		if a.Cwd == "" {
			a.Cwd = "."
		}
		a.Cwd = c.Resolve(a.Cwd)
		a.Key, a.Attestation = c.Resolve(a.Key), c.Resolve(a.Attestation)
	}
	return nil
}

func (a *AgentConfig) validate() error {
	if a.Name == "" {
		return errors.New("name is required")
	}
	if strings.ContainsAny(a.Name, `/\`) || a.Name == "." || a.Name == ".." {
		return fmt.Errorf("name %q may not contain a path separator", a.Name)
	}
	if a.Key == "" {
		return errors.New(`key is required: the agent's key file (create it with: hive key new --out agent.key)`)
	}
	if a.Attestation == "" {
		return errors.New(`attestation is required: the owner's tag file (hive agent attest --key owner.key --agent <agent npub> --expires 30d > agent.tag)`)
	}
	if len(a.Command) == 0 || a.Command[0] == "" {
		return errors.New(`command is required: the ACP agent to run, e.g. command = ["claude-agent-acp"]`)
	}
	if err := intIn("processes", &a.Processes, 1, 1, MaxProcesses); err != nil {
		return err
	}
	if err := choice("permissions", &a.Permissions, PermAsk, PermAllow, PermDeny); err != nil {
		return err
	}
	var err error
	if a.permTimeout, err = duration("permission_timeout", a.PermissionTimeout, 5*time.Minute); err != nil {
		return err
	}
	if a.turnTimeout, err = duration("turn_timeout", a.TurnTimeout, 30*time.Minute); err != nil {
		return err
	}
	if a.idleTTL, err = duration("idle_timeout", a.IdleTimeout, 10*time.Minute); err != nil {
		return err
	}
	if a.idleTTL > a.turnTimeout {
		return fmt.Errorf("idle_timeout (%v) is longer than turn_timeout (%v)", a.idleTTL, a.turnTimeout)
	}
	if err := a.validateContext(); err != nil {
		return err
	}
	if a.answer, err = parseAnswer(a.Answer); err != nil {
		return err
	}
	if err := checkEnv(a.Env); err != nil {
		return err
	}
	if len(a.HiveToolsWriteChannels) > 0 && !a.HiveToolsWrite {
		return errors.New("hive_tools_write_channels needs hive_tools_write = true (the write tools are off)")
	}
	for _, ch := range a.HiveToolsWriteChannels {
		if ch == "" || strings.HasPrefix(ch, "-") {
			return fmt.Errorf("hive_tools_write_channels: %q is not a channel id (or \"*\")", ch)
		}
	}
	for _, m := range a.MCPServers {
		if m.Name == "" || m.Command == "" {
			return errors.New("every mcp_servers entry needs a name and a command")
		}
		if err := checkEnv(m.Env); err != nil {
			return fmt.Errorf("mcp_servers %q: %w", m.Name, err)
		}
	}
	return nil
}

func duration(key, v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s = %q: use a positive duration such as 90s, 5m or 1h", key, v)
	}
	return d, nil
}

func parseAnswer(v any) (Answer, error) {
	switch x := v.(type) {
	case nil:
		return Answer{Owner: true}, nil
	case string:
		switch x {
		case "", "owner":
			return Answer{Owner: true}, nil
		case "members":
			return Answer{Members: true}, nil
		}
		return Answer{}, fmt.Errorf(`answer = %q: use "owner", "members" or a list of npubs or hex keys`, x)
	case []any:
		ans := Answer{Keys: map[string]bool{}}
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return Answer{}, fmt.Errorf("answer: %v is not a string", e)
			}
			switch s {
			case "owner":
				ans.Owner = true
				continue
			case "members":
				ans.Members = true
				continue
			}
			pk, err := identity.ParsePublicKey(s)
			if err != nil {
				return Answer{}, fmt.Errorf("answer: %q: %v", s, err)
			}
			ans.Keys[pk] = true
		}
		return ans, nil
	}
	return Answer{}, fmt.Errorf(`answer: use "owner", "members" or a list of npubs or hex keys`)
}

// Context modes: what a turn's prompt carries before the mention.
const (
	ContextChannel = "channel" // a thread's unseen messages, or the channel's since the last turn
	ContextThread  = "thread"  // only a thread's unseen messages (a top-level mention gets none)
	ContextNone    = "none"
)

// Context defaults and bounds.
const (
	DefaultContextMessages = 20
	DefaultContextBytes    = 16 << 10
	MaxContextMessages     = 200
	MaxContextBytes        = 256 << 10
)

func (a *AgentConfig) validateContext() error {
	if err := choice("context", &a.Context, ContextChannel, ContextThread, ContextNone); err != nil {
		return err
	}
	if err := intIn("context_messages", &a.ContextMessages, DefaultContextMessages, 1, MaxContextMessages); err != nil {
		return err
	}
	return intIn("context_bytes", &a.ContextBytes, DefaultContextBytes, 256, MaxContextBytes)
}

// choice checks a string key against its values; "" becomes the first.
func choice(key string, v *string, values ...string) error {
	if *v == "" {
		*v = values[0]
	}
	if slices.Contains(values, *v) {
		return nil
	}
	q := make([]string, len(values))
	for i, s := range values {
		q[i] = strconv.Quote(s)
	}
	return fmt.Errorf("%s = %q: use %s or %s", key, *v, strings.Join(q[:len(q)-1], ", "), q[len(q)-1])
}

// intIn checks an integer key against its bounds; 0 becomes def.
func intIn(key string, v *int, def, lo, hi int) error {
	if *v == 0 {
		*v = def
	}
	if *v < lo || *v > hi {
		return fmt.Errorf("%s = %d: must be %d to %d", key, *v, lo, hi)
	}
	return nil
}

// hiveTools reports whether sessions get the `hive` MCP server.
func (a *AgentConfig) hiveTools() bool { return a.HiveTools == nil || *a.HiveTools }
