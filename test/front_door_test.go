package test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cliError is a --json error report.
type cliError struct {
	Error, Message, Hint string
}

func (c *cli) fails(t *testing.T, code int, args ...string) cliError {
	t.Helper()
	out, errOut, got := c.run(append(args, "--json")...)
	var e cliError
	if got != code || json.Unmarshal([]byte(errOut), &e) != nil {
		t.Fatalf("hive %s: exit %d, want %d\n%s%s", strings.Join(args, " "), got, code, out, errOut)
	}
	return e
}

// TestHubURLMistakes: the URL mistakes a new user makes get an error that
// names the fix, as bad input (exit 1), never "is the hub running?": ws://
// against a TLS hub says to use wss:// and the pin; wss:// against a plain
// hub says to use ws://; a URL without a scheme says which to add, both on
// the command line and in `hive profile add`.
func TestHubURLMistakes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "hub")
	tlsHub, pin := startTLSHub(t, data)
	key := filepath.Join(data, "admin.key")
	c := newCLI(t)
	noRunningHint := func(what string, e cliError) {
		t.Helper()
		if strings.Contains(e.Message+e.Hint, "is the hub running") {
			t.Fatalf("%s: %+v, want no 'is the hub running?'", what, e)
		}
	}

	e := c.fails(t, 1, "channel", "list", "--hub", "ws://"+tlsHub.addr, "--key", key)
	if !strings.Contains(e.Message, "serves TLS") || !strings.Contains(e.Message+e.Hint, "wss://"+tlsHub.addr) || !strings.Contains(e.Message+e.Hint, "--pin") {
		t.Fatalf("ws:// against a TLS hub: %+v", e)
	}
	noRunningHint("ws:// against a TLS hub", e)

	plain := startProc(t, filepath.Join(t.TempDir(), "plain"), freeAddr(t))
	e = c.fails(t, 1, "channel", "list", "--hub", "wss://"+plain.addr, "--key", key)
	if !strings.Contains(e.Message, "does not serve TLS") || !strings.Contains(e.Message+e.Hint, "ws://"+plain.addr) {
		t.Fatalf("wss:// against a plain hub: %+v", e)
	}
	noRunningHint("wss:// against a plain hub", e)

	for _, bare := range []string{tlsHub.addr, "localhost:7447"} {
		e = c.fails(t, 1, "channel", "list", "--hub", bare, "--key", key, "--pin", pin)
		if !strings.Contains(e.Message, "no ws:// or wss:// scheme") || !strings.Contains(e.Message+e.Hint, "wss://"+bare) {
			t.Fatalf("--hub %s: %+v", bare, e)
		}
		noRunningHint("a URL without a scheme", e)
		e = c.fails(t, 1, "profile", "add", "bare", "--hub", bare, "--key", key)
		if !strings.Contains(e.Message, "no ws:// or wss:// scheme") {
			t.Fatalf("profile add --hub %s: %+v", bare, e)
		}
	}
}

// TestWrongPinHintWorks: a profile whose pin no longer matches the hub is
// refused (exit 3), and the hint's command, run as printed, fixes the
// profile (it suggested `hive profile add NAME --pin PIN`, which failed for
// want of --hub and --key); the profile keeps its hub and key.
func TestWrongPinHintWorks(t *testing.T) {
	data := filepath.Join(t.TempDir(), "hub")
	p, pin := startTLSHub(t, data)
	c := newCLI(t)
	wrong := "sha256/" + strings.Repeat("A", 43) + "="
	c.ok("profile", "add", "admin", "--hub", p.URL, "--pin", wrong, "--key", filepath.Join(data, "admin.key"))
	e := c.fails(t, 3, "channel", "list")
	m := regexp.MustCompile("`hive (profile add [^`]+)`").FindStringSubmatch(e.Hint)
	if m == nil || !strings.Contains(m[1], "admin") || !strings.Contains(m[1], pin) {
		t.Fatalf("wrong pin: hint %q, want a `hive profile add admin --pin %s` command", e.Hint, pin)
	}
	c.ok(strings.Fields(m[1])...)
	c.ok("channel", "list")
	out := c.ok("profile", "list", "--json")
	if !strings.Contains(out, p.URL) || !strings.Contains(out, "admin.key") || !strings.Contains(out, pin) {
		t.Fatalf("profile after the hint's command: %s", out)
	}
}

var versionRe = regexp.MustCompile(`^hive (\S+) \(commit ([0-9a-f]{7,40}|unknown)(\+dirty)?\)\n$`)

// TestVersion: `hive version` and `hive --version` print the version and
// the commit: `make build` sets them from git (-ldflags), and a plain `go
// build` takes the commit from the VCS stamp Go puts in the binary, if any.
func TestVersion(t *testing.T) {
	c := newCLI(t)
	a, b := c.ok("version"), c.ok("--version")
	if a != b {
		t.Fatalf("hive version %q, hive --version %q", a, b)
	}
	m := versionRe.FindStringSubmatch(a)
	if m == nil {
		t.Fatalf("hive version: %q", a)
	}
	stamps, err := exec.Command("go", "version", "-m", binary(t)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if rev := regexp.MustCompile(`vcs\.revision=([0-9a-f]+)`).FindSubmatch(stamps); rev != nil && !strings.HasPrefix(string(rev[1]), m[2]) {
		t.Fatalf("hive version names commit %s, the binary's VCS stamp %s", m[2], rev[1])
	}
	var v struct{ Version, Commit string }
	if err := json.Unmarshal([]byte(c.ok("version", "--json")), &v); err != nil || v.Version != m[1] || !strings.HasPrefix(v.Commit, m[2]) {
		t.Fatalf("hive version --json: %+v %v", v, err)
	}

	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("no git checkout here (%v): make build's commit cannot be checked", err)
	}
	bin := filepath.Join(t.TempDir(), "hive")
	if out, err := exec.Command("make", "-C", "..", "build", "BIN="+bin).CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	want := "(commit " + strings.TrimSpace(string(head))
	if err != nil || !strings.HasPrefix(string(out), "hive ") || !strings.Contains(string(out), want) {
		t.Fatalf("make build's hive version: %q %v, want it to name %s)", out, err, want)
	}
}
