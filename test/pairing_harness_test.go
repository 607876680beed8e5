package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// pairProc is a running `hive pair|join --json`: its NDJSON events, its
// stdin for the y/n answer, and its exit code.
type pairProc struct {
	t      testing.TB
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan map[string]any
	code   chan int
	stderr *bytes.Buffer
	mu     *sync.Mutex
}

// start runs the binary with the cli's HIVE_HOME and --json.
func (c *cli) start(args ...string) *pairProc {
	c.t.Helper()
	cmd := exec.Command(binary(c.t), append(args, "--json")...)
	cmd.Env = append(append(os.Environ(), "HIVE_HOME="+c.home), c.env...)
	p := &pairProc{t: c.t, name: args[0], cmd: cmd, events: make(chan map[string]any, 16), code: make(chan int, 1), stderr: &bytes.Buffer{}, mu: &sync.Mutex{}}
	p.stdin, _ = cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = lockedWriter{p.mu, p.stderr}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				p.events <- ev
			}
		}
		close(p.events)
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		p.code <- code
	}()
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (p *pairProc) errors() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// next returns the next event, which must be want.
func (p *pairProc) next(want string) map[string]any {
	p.t.Helper()
	select {
	case ev, ok := <-p.events:
		if !ok || ev["event"] != want {
			p.t.Fatalf("hive %s: want event %q, got %v\nstderr: %s", p.name, want, ev, p.errors())
		}
		return ev
	case <-time.After(30 * time.Second):
		p.t.Fatalf("hive %s: no %q event\nstderr: %s", p.name, want, p.errors())
	}
	return nil
}

// answer writes a line on stdin.
func (p *pairProc) answer(line string) { io.WriteString(p.stdin, line+"\n") }

// exit waits for the exit code.
func (p *pairProc) exit() int {
	p.t.Helper()
	select {
	case c := <-p.code:
		return c
	case <-time.After(30 * time.Second):
		p.t.Fatalf("hive %s did not exit\nstderr: %s", p.name, p.errors())
	}
	return -1
}

// quiet asserts that no event arrives within d.
func (p *pairProc) quiet(d time.Duration) {
	p.t.Helper()
	select {
	case ev, ok := <-p.events:
		if ok {
			p.t.Fatalf("hive %s: unexpected event %v", p.name, ev)
		}
	case <-time.After(d):
	}
}

// pairingHub is a TLS hub with an owner (its admin) profile.
type pairingHub struct {
	hub   *hubProc
	pin   string
	data  string
	owner *cli
}

func startPairingHub(t *testing.T) *pairingHub {
	t.Helper()
	data := filepath.Join(t.TempDir(), "hub")
	p, pin, owner := startTLSAdmin(t, data, "owner")
	return &pairingHub{hub: p, pin: pin, data: data, owner: owner}
}

// withBob creates channels as the owner and adds a member "bob" (a CLI
// profile of a new key, in a HIVE_HOME of its own) who joins them.
func (h *pairingHub) withBob(t *testing.T, channels ...string) *cli {
	t.Helper()
	bob := newCLI(t)
	var b struct{ Npub string }
	json.Unmarshal([]byte(bob.ok("profile", "add", "bob", "--hub", h.hub.URL, "--pin", h.pin, "--new-key", "--json")), &b)
	h.owner.ok("member", "add", b.Npub)
	for _, ch := range channels {
		h.owner.ok("channel", "create", ch)
		bob.ok("channel", "join", ch)
	}
	return bob
}

// ownerClient connects as the hub's admin.
func (h *pairingHub) ownerClient(t *testing.T) *client.Client {
	t.Helper()
	k, err := identity.LoadKeyFile(filepath.Join(h.data, "admin.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctxT(t), client.Options{URLs: []string{h.hub.URL}, Keys: k, Pin: h.pin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// profileOf reads the profile a join wrote.
func profileOf(t testing.TB, c *cli, name string) client.Profile {
	t.Helper()
	set, err := client.LoadProfiles(c.home)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := set.Get(name)
	if err != nil {
		t.Fatalf("profile %q: %v", name, err)
	}
	return pr
}

// dialProfile connects with a profile's hub, pin, key and attestation.
func dialProfile(ctx context.Context, t *testing.T, pr client.Profile) (*client.Client, error) {
	t.Helper()
	k, err := identity.LoadKeyFile(pr.Key, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tag nostr.Tag
	if pr.Attestation != "" {
		if tag, err = identity.ParseTagJSON(pr.Attestation); err != nil {
			t.Fatal(err)
		}
	}
	return client.Connect(ctx, client.Options{URLs: pr.Hubs, Keys: k, AuthTag: tag, Pin: pr.Pin})
}

// pairAndJoin runs hive pair and hive join to the SAS step and returns
// both, with the SAS each shows.
func pairAndJoin(t *testing.T, h *pairingHub, joiner *cli, pairArgs ...string) (pair, join *pairProc, uri string) {
	t.Helper()
	pair = h.owner.start(append([]string{"pair"}, pairArgs...)...)
	uri = pair.next("uri")["uri"].(string)
	join = joiner.start("join", uri)
	if a, b := pair.next("sas")["sas"], join.next("sas")["sas"]; a != b {
		t.Fatalf("pair shows %v, join shows %v", a, b)
	}
	return pair, join, uri
}

func noProfiles(t *testing.T, c *cli) {
	t.Helper()
	set, err := client.LoadProfiles(c.home)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Profiles) != 0 {
		t.Fatalf("profiles written: %v", set.List())
	}
	if keys, _ := os.ReadDir(filepath.Join(c.home, "keys")); len(keys) != 0 {
		t.Fatalf("key files written: %v", keys)
	}
}

func hasSubstr(s, sub string) bool { return strings.Contains(s, sub) }
