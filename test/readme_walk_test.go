package test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// readmeWalk runs the README's shell lines as a new user types them, in
// one directory, against the hub the README starts. Only what a person
// fills in is replaced: the hub's address (a free port instead of 7447),
// the pin the hub printed, the npubs the commands printed, the id a search
// found.
type readmeWalk struct {
	t     *testing.T
	dir   string
	env   map[string]string
	addr  string
	pin   string
	npubs map[string]string // alice, bob, agent
	last  string            // the previous command's output
	bg    map[string]*bgProc
	hub   *logged // the hub make run started
	flags string  // its RUNFLAGS
}

// bgProc is a command the README keeps running in its own terminal.
type bgProc struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

func (b *bgProc) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out.Write(p)
}

func (b *bgProc) text() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out.String()
}

var (
	shBlockRe  = regexp.MustCompile("(?s)```sh\n(.*?)```")
	tomlRe     = regexp.MustCompile("(?s)```toml\n(.*?)```")
	commentRe  = regexp.MustCompile(`\s+#\s.*$`)
	assignRe   = regexp.MustCompile(`^(?:export )?([A-Z_]+)=(.*)$`)
	npubRe     = regexp.MustCompile(`npub1[02-9ac-hj-np-z]{58}`)
	hitIDRe    = regexp.MustCompile(`(?m)^\S+ \S+ ([0-9a-f]{8,64}) `) // a search hit's line: date, time, id
	makeRunRe  = regexp.MustCompile(`^make run RUNFLAGS="([^"]*)"$`)
	keepRunRe  = regexp.MustCompile(`keep (this one|it) running`)
	newKeyRe   = regexp.MustCompile(`^hive profile add (\w+) .*--new-key`)
	agentKeyRe = regexp.MustCompile(`^hive key new --out (\w+)\.key`)
)

// section is the README's text from the heading to the next "## " heading.
func section(t *testing.T, readme, heading string) string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("the README has no %q section", heading)
	}
	s := readme[i+len(heading)+2:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

func (w *readmeWalk) fill(line string) string {
	r := strings.NewReplacer("127.0.0.1:7447", w.addr, "sha256/...", w.pin,
		"npub1...alice", w.npubs["alice"], "npub1...bob", w.npubs["bob"], "npub1...agent", w.npubs["agent"],
		"<id from the search>", w.hitID())
	return r.Replace(line)
}

// hitID is the id of the first hit of the previous command, a search.
func (w *readmeWalk) hitID() string {
	if m := hitIDRe.FindStringSubmatch(w.last); m != nil {
		return m[1]
	}
	return ""
}

func (w *readmeWalk) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HIVE_") {
			env = append(env, kv)
		}
	}
	for k, v := range w.env {
		env = append(env, k+"="+v)
	}
	return env
}

func (w *readmeWalk) shell(line string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = w.dir, w.environ()
	return cmd
}

// line runs one line of a README shell block.
func (w *readmeWalk) line(raw string) {
	t := w.t
	t.Helper()
	keep := keepRunRe.MatchString(raw)
	line := strings.TrimSpace(w.fill(commentRe.ReplaceAllString(raw, "")))
	switch m := makeRunRe.FindStringSubmatch(line); {
	case line == "":
	case m != nil:
		w.makeRun(m[1])
	case assignRe.MatchString(line):
		a := assignRe.FindStringSubmatch(line)
		out, err := w.shell(`printf %s "` + a[2] + `"`).Output()
		if err != nil {
			t.Fatalf("README: %s: %v", raw, err)
		}
		w.env[a[1]] = string(out)
	case keep:
		b := &bgProc{cmd: w.shell("exec " + line)}
		b.cmd.Stdout, b.cmd.Stderr = b, b
		if err := b.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.cmd.Process.Kill(); b.cmd.Wait() })
		w.bg[strings.Fields(line)[1]] = b
		switch {
		case strings.HasPrefix(line, "hive workflow serve"):
			waitText(t, "the runner to follow the hub", 30*time.Second, b.text, "runner following")
		case strings.HasPrefix(line, "hive bridge"):
			waitText(t, "the bridge to join its channel", 30*time.Second, b.text, "member of channel")
		case strings.HasPrefix(line, "hive tail"):
			// tail takes its since before it prints the history: what is
			// sent once that is out is followed
			waitText(t, "the tail's history", 30*time.Second, b.text, "joined")
		default:
			// bare sleep: hive agent watch prints nothing until a frame comes
			// and the README's hub is as a person starts it (no metrics); its
			// subscription is up well within a second
			time.Sleep(time.Second)
		}
	default:
		out, err := w.shell(line).CombinedOutput()
		if err != nil {
			t.Fatalf("README: %s\n(as run: %s)\n%v\n%s\n(the previous command printed:\n%s)", raw, line, err, out, w.last)
		}
		w.last = string(out)
		if m := newKeyRe.FindStringSubmatch(line); m != nil {
			w.npubs[m[1]] = npubRe.FindString(w.last)
		}
		if m := agentKeyRe.FindStringSubmatch(line); m != nil {
			w.npubs["agent"] = npubRe.FindString(w.last)
		}
		if strings.HasPrefix(line, "hive search ") && w.hitID() == "" {
			t.Fatalf("README: %s\n(as run: %s) finds nothing:\n%s", raw, line, w.last)
		}
	}
}

// makeRun does what `make run RUNFLAGS=...` does (the Makefile's run
// target, checked here): serve the data in ./.hive.
func (w *readmeWalk) makeRun(flags string) {
	t := w.t
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mk), "\n\t./$(BIN) serve --data $(DATA) --addr $(ADDR) $(RUNFLAGS)\n") || !strings.Contains(string(mk), "\nDATA    ?= .hive\n") {
		t.Fatal("the Makefile's run target is no longer `./$(BIN) serve --data $(DATA) --addr $(ADDR) $(RUNFLAGS)` with DATA .hive: update this test")
	}
	cmd := exec.Command(binary(t), append([]string{"serve", "--data", ".hive", "--addr", w.addr}, strings.Fields(flags)...)...)
	cmd.Dir = w.dir
	p := startLogged(t, cmd, "hive hub serving", 20*time.Second)
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	w.pin = pinRe.FindString(p.logs())
	w.hub, w.flags = p, flags
}

// waitText polls text until it contains want.
func waitText(t *testing.T, what string, within time.Duration, text func() string, want string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(text(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: no %q in:\n%s", what, want, text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReadmeWalkthrough runs the README as a new user reads it, with the
// real binary: `make run` with TLS, the three profiles, membership, the
// channel, tail, send, read and search of "Two members chatting", then the
// agent's key, attestation and channel, its bridge.toml (the claude example
// as written, the agent program swapped for the test's scripted ACP agent:
// the real claude-agent-acp runs the same example in
// TestBridgeClaudeAgentACP), the bridge, the owner's watch and a mention
// the agent answers. Before the fix the README's bridge.toml said
// ws://... to its own wss hub, and its commands used an owner.key that is
// not a member.
func TestReadmeWalkthrough(t *testing.T) {
	walkReadme(t)
}

// walkReadme is TestReadmeWalkthrough's walk; it returns the walk with the
// hub, the tail, the bridge and the owner's watch still running, and a
// reader of channel general (hive read as bob).
func walkReadme(t *testing.T) (*readmeWalk, func() string) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(binary(t), filepath.Join(dir, "bin", "hive")); err != nil {
		t.Fatal(err)
	}
	w := &readmeWalk{t: t, dir: dir, addr: freeAddr(t), npubs: map[string]string{}, bg: map[string]*bgProc{},
		env: map[string]string{"HIVE_HOME": filepath.Join(dir, "home")}}

	for _, block := range shBlockRe.FindAllStringSubmatch(section(t, readme, "## Two members chatting, from scratch"), -1) {
		for _, l := range strings.Split(block[1], "\n") {
			w.line(l)
		}
	}
	tail := w.bg["tail"]
	if tail == nil {
		t.Fatal("the README keeps no `hive tail --follow` running")
	}
	waitText(t, "bob's tail", 10*time.Second, tail.text, "hello bob")
	waitText(t, "bob's tail", 10*time.Second, tail.text, "a longer note")

	agents := section(t, readme, "## Agents: `hive bridge`")
	blocks := shBlockRe.FindAllStringSubmatch(agents, -1)
	if len(blocks) == 0 {
		t.Fatal("the agents section has no shell block")
	}
	for _, l := range strings.Split(blocks[0][1], "\n") {
		w.line(l)
	}
	toml := tomlRe.FindStringSubmatch(agents)
	if len(blocks) != 2 || toml == nil {
		t.Fatalf("the agents section has %d sh blocks (want the setup and the run) and toml %v", len(blocks), toml != nil)
	}
	cfg := w.fill(toml[1])
	swapped := regexp.MustCompile(`(?m)^command = \["claude-agent-acp"\]$`).ReplaceAllString(cfg, `command = ["`+goTool(t, "acpagent")+`"]`)
	if swapped == cfg {
		t.Fatalf("the README's first bridge.toml is not the claude-agent-acp example:\n%s", cfg)
	}
	if err := os.WriteFile(filepath.Join(dir, "bridge.toml"), []byte(swapped), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(blocks[1][1], "\n") {
		w.line(l)
	}
	if w.bg["bridge"] == nil || w.bg["agent"] == nil {
		t.Fatal("the README keeps no bridge and no `hive agent watch` running")
	}
	read := func() string {
		out, _ := w.shell("hive read general --profile bob").CombinedOutput()
		return string(out)
	}
	waitText(t, "the agent's reply in general", 30*time.Second, read, "heard 1: @claude what is in work/?")
	waitText(t, "the owner's watch", 10*time.Second, w.bg["agent"].text, "what is in work/?")
	return w, read
}
