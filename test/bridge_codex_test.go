package test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/ainb/hive/test/mockmodel"
)

// codexQuiet keeps codex from checking for updates or sending analytics
// during the tests (root keys, then a table: it ends a config's root part).
const codexQuiet = `check_for_update_on_startup = false

[analytics]
enabled = false
`

// codexHome writes a fresh CODEX_HOME whose config.toml sends codex's model
// calls to the mock Responses API (codex writes into it: one per run).
func codexHome(t *testing.T, dir, mockURL string) string {
	t.Helper()
	home := filepath.Join(dir, "codex-home")
	os.MkdirAll(home, 0o700)
	cfg := fmt.Sprintf(`model = "gpt-5.4-mini"
model_provider = "mock"
%s
[model_providers.mock]
name = "mock"
base_url = "%s/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false
`, codexQuiet, mockURL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// codexEnv makes a HOME and a CODEX_HOME (codexHome) under e's directory
// and returns the bridge config's env line naming them, and the CODEX_HOME.
func codexEnv(t *testing.T, e *bridgeEnv, mockURL string) (envLine, codexHomeDir string) {
	t.Helper()
	home := filepath.Join(e.dir, "home")
	os.MkdirAll(home, 0o700)
	ch := codexHome(t, e.dir, mockURL)
	return fmt.Sprintf(`env = { HOME = %q, CODEX_HOME = %q }`, home, ch), ch
}

// openAIMock starts the mock Responses API for the test's duration.
func openAIMock(t *testing.T, shell string) *mockmodel.OpenAI {
	t.Helper()
	m, err := mockmodel.StartOpenAI("hello from the mock model", shell)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// The real codex-acp (its Node wrapper and native child), its model calls
// answered by the mock Responses API through a CODEX_HOME provider config:
// a mention gets exactly the model's text as the one threaded reply; a turn
// where the model calls exec_command outside the sandbox raises a
// permission request (codex sends it before its tool_call), the owner
// approves it with a control frame, and the command runs. When the bridge
// stops, no codex process is left (the wrapper alone ignores stdin EOF and
// orphans its native child on SIGTERM: the bridge kills the group).
func TestBridgeCodexACP(t *testing.T) {
	bin := adapterBin(t, "codex-acp")
	mock := openAIMock(t, "echo hi > out.txt")
	e := newBridgeEnv(t)
	env, ch := codexEnv(t, e, mock.URL)
	e.config(t, []string{bin}, env,
		`permissions = "ask"`, `permission_timeout = "90s"`, `turn_timeout = "3m"`, `idle_timeout = "2m"`)
	// The wrapper and its native child.
	e.runAdapter(t, e.workDir(t), mock.Text, mock.Log, "CODEX_HOME="+ch, 2)
}

// readmeAgent returns the README's [[agent]] example named name.
func readmeAgent(t *testing.T, name string) map[string]any {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllSubmatch(readme, -1) {
		var doc struct {
			Agent []map[string]any `toml:"agent"`
		}
		if _, err := toml.Decode(string(block[1]), &doc); err != nil {
			t.Fatalf("a toml block of the README does not parse: %v\n%s", err, block[1])
		}
		for _, a := range doc.Agent {
			if a["name"] == name {
				return a
			}
		}
	}
	t.Fatalf("the README has no [[agent]] example named %q", name)
	return nil
}

// readmeAgentLines renders a README [[agent]] example as config lines for
// the test's bridge: the test supplies name, key, attestation, command and
// cwd; env is the example's with extra added (extra wins); tail adds keys
// the example does not set.
func readmeAgentLines(t *testing.T, a map[string]any, extra map[string]string, tail ...string) []string {
	t.Helper()
	env := map[string]string{}
	if e, ok := a["env"].(map[string]any); ok {
		for k, v := range e {
			env[k] = fmt.Sprint(v)
		}
	}
	maps.Copy(env, extra)
	var kv []string
	for k, v := range env {
		kv = append(kv, fmt.Sprintf("%s = %q", k, v))
	}
	lines := []string{"env = { " + strings.Join(kv, ", ") + " }"}
	for k, v := range a {
		switch k {
		case "name", "key", "attestation", "command", "cwd", "env": // the test's own, or above
		default:
			s, ok := v.(string)
			if !ok {
				t.Fatalf("README %s example: %s = %v is not a string (extend this test)", a["name"], k, v)
			}
			lines = append(lines, fmt.Sprintf("%s = %q", k, s))
		}
	}
	return append(lines, tail...)
}

// The README's codex-acp example as written (an OpenAI API key in env and
// auth_method = "openai-api-key"), run with the test's key files and the
// npm-installed codex-acp; the only addition is a CODEX_HOME whose config
// points codex's built-in OpenAI provider at the mock (openai_base_url).
// The reply is the model's text, and the key reached the model API.
func TestBridgeCodexACPReadmeConfig(t *testing.T) {
	bin := adapterBin(t, "codex-acp")
	mock := openAIMock(t, "true")
	a := readmeAgent(t, "codex")
	if cmd, _ := a["command"].([]any); len(cmd) != 1 || cmd[0] != "codex-acp" {
		t.Fatalf("the README's codex command is %v, not [\"codex-acp\"]", a["command"])
	}
	env, _ := a["env"].(map[string]any)
	key, _ := env["OPENAI_API_KEY"].(string)
	if key == "" {
		t.Fatalf("the README's codex example sets no OPENAI_API_KEY: %v", a)
	}
	e := newBridgeEnv(t)
	ch := filepath.Join(e.dir, "codex-home")
	os.MkdirAll(ch, 0o700)
	os.WriteFile(filepath.Join(ch, "config.toml"), []byte(fmt.Sprintf("openai_base_url = %q\n%s", mock.URL+"/v1", codexQuiet)), 0o600)
	lines := readmeAgentLines(t, a, map[string]string{"HOME": filepath.Join(e.dir, "home"), "CODEX_HOME": ch})
	e.config(t, []string{bin}, lines...)
	e.workDir(t)
	b := e.start(t)

	_, r := e.ask(t, b, "say hello", 90*time.Second)
	if r.Content != mock.Text {
		t.Fatalf("reply %q, want exactly %q; mock log %v; bridge log:\n%s", r.Content, mock.Text, mock.Log(), b.logs())
	}
	if got := mock.Authorization(); got != "Bearer "+key {
		t.Fatalf("the model API saw Authorization %q, want the README's key", got)
	}
}

// kill -9 of the bridge while codex-acp runs: the agent guard takes codex's
// whole process group down with the bridge (codex ignores stdin EOF, so
// without it the wrapper and its native child lived on); a mention posted
// while the bridge is down is answered once after the restart, in the same
// codex session, resumed with session/load (codex sent the model the
// conversation from before the crash), with the configured model pinned
// again after the load.
func TestBridgeCodexKill9Resumes(t *testing.T) {
	bin := adapterBin(t, "codex-acp")
	mock := openAIMock(t, "true")
	e := newBridgeEnv(t)
	env, ch := codexEnv(t, e, mock.URL)
	// CODEX_HOME names gpt-5.4-mini; the bridge pins gpt-5.4 (codex has no
	// session/set_model: the bridge sets its "model" config option).
	e.config(t, []string{bin}, env, `model = "gpt-5.4"`)
	e.workDir(t)
	b := e.start(t)
	m0, _ := e.ask(t, b, "the word is [[remember:pineapple]]", 90*time.Second)
	if got := mock.Model(); got != "gpt-5.4" {
		t.Fatalf("codex asked the model API for %q, not the pinned gpt-5.4; bridge log:\n%s", got, b.logs())
	}
	procs := procsWithEnv("CODEX_HOME=" + ch)
	b.kill9()
	noProcsLeft(t, "CODEX_HOME="+ch, procs)

	m1 := e.mention(t, e.a, e.alice, "room", "while you were down [[recall]]")
	b2 := e.start(t)
	r := e.waitReply(t, "room", m1.ID, 90*time.Second, b2)
	if r.Content != "recall: pineapple" {
		t.Fatalf("reply after the restart %q; mock log %v; bridge log:\n%s", r.Content, mock.Log(), b2.logs())
	}
	if got := mock.Model(); got != "gpt-5.4" {
		t.Fatalf("after session/load codex asked for %q, not the pinned gpt-5.4", got)
	}
	e.settled(t, "room", b2)
	for _, id := range []string{m0.ID, m1.ID} {
		if n := e.repliesTo(t, "room", id); n != 1 {
			t.Fatalf("%d replies to %s", n, id)
		}
	}
	procs = procsWithEnv("CODEX_HOME=" + ch)
	b2.stop()
	noProcsLeft(t, "CODEX_HOME="+ch, procs)
}
