package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// tuiDeadline bounds every wait for a screen (generous: the machine is shared).
const tuiDeadline = 45 * time.Second

// tmuxPane is `hive chat` running in its own tmux server, driven by
// send-keys and read by capture-pane.
type tmuxPane struct {
	t    *testing.T
	sock string
}

// startChat runs hive chat with args in a w x h tmux pane as HIVE_HOME home.
func startChat(t *testing.T, home string, w, h int, args ...string) *tmuxPane {
	t.Helper()
	return startChatEnv(t, home, nil, w, h, args...)
}

// startChatEnv is startChat with more environment (NAME=value).
func startChatEnv(t *testing.T, home string, env []string, w, h int, args ...string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir, err := os.MkdirTemp("", "tmx") // a short path: unix socket names are limited
	if err != nil {
		t.Fatal(err)
	}
	p := &tmuxPane{t: t, sock: filepath.Join(dir, "s")}
	var extra string
	for _, e := range env {
		extra += fmt.Sprintf(" %q", e)
	}
	line := fmt.Sprintf("env HIVE_HOME=%q TERM=xterm-256color%s %q chat %s 2>%q; echo CHAT-EXITED $?; sleep 3600",
		home, extra, binary(t), strings.Join(args, " "), filepath.Join(dir, "stderr"))
	p.tmux("-u", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-s", "chat", line)
	t.Cleanup(func() {
		exec.Command("tmux", "-S", p.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	if args[0] != "-u" {
		args = append([]string{"-u"}, args...)
	}
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends keys (tmux key names, or literal text with -l).
func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", chatPane}, keys...)...)
}

// typeText types text literally, without Enter.
func (p *tmuxPane) typeText(text string) {
	p.t.Helper()
	p.keys("-l", text)
}

// say types text literally, then Enter.
func (p *tmuxPane) say(text string) {
	p.t.Helper()
	p.typeText(text)
	p.keys("Enter")
}

// complete types @prefix and Tab, and waits for the composer to hold the
// completed @name.
func (p *tmuxPane) complete(prefix, name string) {
	p.t.Helper()
	p.typeText("@" + prefix)
	p.keys("Tab")
	p.waitText("> @" + name)
}

func (p *tmuxPane) screen() string { p.t.Helper(); return p.tmux("capture-pane", "-p", "-t", chatPane) }

// chatPane is the pane hive chat runs in.
const chatPane = "chat"

// blur tells hive chat that its terminal lost the focus, as a terminal
// reports it (CSI O, focus reporting is on): the person looks elsewhere
// and nothing is marked read.
func (p *tmuxPane) blur() {
	p.t.Helper()
	p.tmux("send-keys", "-t", chatPane, "-H", "1b", "5b", "4f")
}

// waitFor polls the screen until ok holds, failing with the last screen.
func (p *tmuxPane) waitFor(what string, ok func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(tuiDeadline)
	for {
		s := p.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waiting for %s: screen is\n%s", what, s)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// waitText waits until the screen shows every one of texts.
func (p *tmuxPane) waitText(texts ...string) string {
	p.t.Helper()
	return p.waitFor(strings.Join(texts, " + "), func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// chatWorld is a real `hive serve` with admin, alice and bob as profiles
// of one HIVE_HOME, named by their kind 0 profiles, in channel "general".
type chatWorld struct {
	hub  *hubProc
	data string
	c    *cli
	keys map[string]string // profile -> key file
	npub map[string]string
}

func newChatWorld(t *testing.T) *chatWorld {
	t.Helper()
	dir := t.TempDir()
	w := &chatWorld{data: filepath.Join(dir, "hub"), c: newCLI(t)}
	w.hub = startProc(t, w.data, freeAddr(t))
	tm := setUpCLITeam(t, w.c, cliTeamSpec{hub: w.hub.URL, admin: "admin", adminKey: filepath.Join(w.data, "admin.key"),
		members: []string{"alice", "bob"}, creator: "alice", channels: []string{"general"}})
	w.keys, w.npub = tm.keys, tm.npub
	return w
}

// client is a connection as the profile's key (closed with the test).
func (w *chatWorld) client(t *testing.T, who string) *client.Client {
	t.Helper()
	keys, err := identity.LoadKeyFile(w.keys[who], nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Options{URLs: []string{w.hub.URL}, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// publish signs ev as the profile's key and publishes it.
func (w *chatWorld) publish(t *testing.T, who string, ev nostr.Event) nostr.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	stored, err := w.client(t, who).Publish(ctx, ev)
	if err != nil {
		t.Fatalf("%s publishes kind %d: %v", who, ev.Kind, err)
	}
	return stored
}

// send sends text to general as who through the CLI and returns its row.
func (w *chatWorld) send(t *testing.T, who, text string) rowJSON {
	t.Helper()
	return rows(t, w.c.ok("send", "general", text, "--profile", who, "--json"))[0]
}

// history is general as who sees it, without marking it read (hive read
// would).
func (w *chatWorld) history(t *testing.T, who string) []chat.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := w.client(t, who).History(ctx, "general", 200, "")
	if err != nil {
		t.Fatal(err)
	}
	return p.Rows
}
