package test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cli runs the binary with HIVE_HOME set to home; it returns stdout, stderr
// and the exit code.
type cli struct {
	t    testing.TB
	home string
	env  []string
}

func newCLI(t testing.TB) *cli {
	return &cli{t: t, home: t.TempDir()}
}

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	cmd := exec.Command(binary(c.t), args...)
	cmd.Env = append(append(os.Environ(), "HIVE_HOME="+c.home), c.env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// ok runs and fails the test on a non-zero exit.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	out, errOut, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("hive %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

var pinRe = regexp.MustCompile(`sha256/[A-Za-z0-9+/=]{44}`)

// startTLSHub runs hive serve --tls self-signed and returns it with its pin.
func startTLSHub(t *testing.T, data string) (*hubProc, string) {
	p := startProc(t, data, freeAddr(t), "--tls", "self-signed")
	pin := pinRe.FindString(p.logs())
	if pin == "" {
		t.Fatalf("no pin in the hub's log:\n%s", p.logs())
	}
	p.URL = strings.Replace(p.URL, "ws://", "wss://", 1)
	return p, pin
}

// startTLSAdmin runs startTLSHub and a CLI whose profile (named profile)
// holds the hub's admin key, pinned.
func startTLSAdmin(t *testing.T, data, profile string) (*hubProc, string, *cli) {
	p, pin := startTLSHub(t, data)
	c := newCLI(t)
	c.ok("profile", "add", profile, "--hub", p.URL, "--pin", pin, "--key", filepath.Join(data, "admin.key"))
	return p, pin, c
}

// wss with a self-signed certificate and a pinned profile; a wrong pin is
// refused with both pins named; plain ws on a public address is refused.
func TestTLSProfileAndPin(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "hub")
	p, pin, c := startTLSAdmin(t, data, "admin")
	var list struct{ Agents []any }
	if err := json.Unmarshal([]byte(c.ok("agent", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	// the same certificate after a restart: the pin is kept
	p.kill9()
	p2, pin2 := startTLSHub(t, data)
	if pin2 != pin {
		t.Fatalf("pin changed across restarts: %s -> %s", pin, pin2)
	}
	_ = p2
	wrong := "sha256/" + strings.Repeat("A", 43) + "="
	c.ok("profile", "add", "bad", "--hub", p2.URL, "--pin", wrong, "--key", filepath.Join(data, "admin.key"))
	_, errOut, code := c.run("agent", "list", "--profile", "bad", "--json")
	var e struct {
		Error, Message, Hint string
		Retryable            bool
	}
	if code != 3 || json.Unmarshal([]byte(errOut), &e) != nil || e.Error != "auth" || !strings.Contains(e.Message, pin) || !strings.Contains(e.Message, wrong) || e.Hint == "" {
		t.Fatalf("wrong pin: exit %d, %s", code, errOut)
	}
	// plain ws on a non-loopback address needs --insecure-plaintext
	_, errOut, code = c.run("serve", "--data", filepath.Join(dir, "plain"), "--addr", "0.0.0.0:0")
	if code != 1 || !strings.Contains(errOut, "--insecure-plaintext") {
		t.Fatalf("plain ws on 0.0.0.0: exit %d %s", code, errOut)
	}
}

// Profiles: add (with a new key), list, use, remove; errors by the contract.
func TestProfileCommands(t *testing.T) {
	c := newCLI(t)
	var v struct {
		Name, Key, Npub string
		Current         bool
	}
	if err := json.Unmarshal([]byte(c.ok("profile", "add", "alice", "--hub", "ws://127.0.0.1:1", "--new-key", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Name != "alice" || !v.Current || !strings.HasPrefix(v.Npub, "npub1") {
		t.Fatalf("%+v", v)
	}
	if st, err := os.Stat(v.Key); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file %s: %v %v", v.Key, st, err)
	}
	c.ok("profile", "add", "bob", "--hub", "ws://127.0.0.1:1", "--new-key")
	c.ok("profile", "use", "bob")
	lines := strings.Split(strings.TrimSpace(c.ok("profile", "list", "--json")), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"current":true`) {
		t.Fatalf("list: %q", lines)
	}
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"profile", "use", "carol"}, 4},
		{[]string{"profile", "add", "x", "--hub", "ws://h"}, 1},
		{[]string{"profile", "add", "bob", "--hub", "ws://h", "--new-key", "--key", "k"}, 1},
		{[]string{"profile", "add", "x", "--hub", "ws://h", "--pin", "sha256/nope", "--new-key"}, 1},
		{[]string{"agent", "list"}, 2}, // bob's hub is unreachable
		{[]string{"agent", "list", "--profile", "carol"}, 1},
		{[]string{"profile", "--no-such-flag"}, 1},
		{[]string{"key", "show", filepath.Join(c.home, "missing.key")}, 4},
	}
	for _, tc := range cases {
		_, errOut, code := c.run(append(tc.args, "--json")...)
		var e struct{ Error, Message string }
		if code != tc.code || json.Unmarshal([]byte(errOut), &e) != nil || e.Error == "" || e.Message == "" {
			t.Errorf("hive %s: exit %d (want %d), stderr %q", strings.Join(tc.args, " "), code, tc.code, errOut)
		}
	}
	c.ok("profile", "remove", "bob")
	if _, _, code := c.run("profile", "remove", "bob"); code != 4 {
		t.Fatalf("second remove: exit %d", code)
	}
}
