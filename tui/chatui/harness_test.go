package chatui

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"github.com/nbd-wtf/go-nostr"
)

// world is a real closed hub on 127.0.0.1 over a real SQLite file (content
// capped at 100 bytes), with alice and bob named by their profiles, both in
// "general", alice also in "random".
type world struct {
	url        string
	alice, bob *client.Client
	aliceKeys  identity.Keys
}

func newWorld(t testing.TB) *world {
	t.Helper()
	lipgloss.SetColorProfile(termenv.Ascii)
	admin, _ := identity.GenerateKeys()
	hk, _ := identity.GenerateKeys()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "ws://" + ln.Addr().String()
	db := filepath.Join(t.TempDir(), "hive.db")
	h, err := hub.Open(hub.Config{OpenStore: func(o store.Options) (store.Log, error) { return sqlite.Open(db, o) }, Admin: admin.PublicHex, Keys: hk,
		Relay: relay.Config{PublicURLs: []string{url}, MaxContentBytes: 100}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h.Relay}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); h.Close() })
	w := &world{url: url}
	ad := w.connect(t, admin)
	must := func(c *client.Client, ev nostr.Event) {
		t.Helper()
		if _, err := c.Publish(ctxT(t), ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []struct {
		name string
		c    **client.Client
	}{{"alice", &w.alice}, {"bob", &w.bob}} {
		k, _ := identity.GenerateKeys()
		if p.name == "alice" {
			w.aliceKeys = k
		}
		must(ad, client.MemberAdd(k.PublicHex))
		*p.c = w.connect(t, k)
		must(*p.c, nostr.Event{Kind: kinds.Profile, Content: `{"name":"` + p.name + `"}`, Tags: nostr.Tags{}})
	}
	must(w.alice, client.ChannelCreate("general", "general", client.Open))
	must(w.alice, client.ChannelCreate("random", "random", client.Open))
	must(w.bob, client.ChannelJoin("general"))
	return w
}

func (w *world) connect(t testing.TB, k identity.Keys) *client.Client {
	t.Helper()
	return w.connectTagged(t, k, nil)
}

// connectTagged connects as k with an owner's NIP-OA auth tag (nil: none).
func (w *world) connectTagged(t testing.TB, k identity.Keys, tag nostr.Tag) *client.Client {
	t.Helper()
	c, err := client.Connect(ctxT(t), client.Options{URLs: []string{w.url}, Keys: k, AuthTag: tag, MinBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// chatAs runs the chat model as c in a teatest program at 100x30.
func chatAs(t *testing.T, c *client.Client, opt Options) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, New(ctxT(t), c, opt), teatest.WithInitialTermSize(100, 30))
	t.Cleanup(func() { tm.Quit() })
	return tm
}

// inGeneral is chatAs with #general open, once the chat shows it connected.
func inGeneral(t *testing.T, c *client.Client, opt Options) *teatest.TestModel {
	t.Helper()
	opt.Channel = "general"
	tm := chatAs(t, c, opt)
	waitOut(t, tm, "#general", "● connected")
	return tm
}

// waitOut waits until the program's output shows every one of texts.
func waitOut(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, x := range texts {
			if !bytes.Contains(b, []byte(x)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(50*time.Millisecond))
}

// stored waits until the hub holds an event of kind by author matching ok.
func stored(t *testing.T, c *client.Client, kind int, author string, ok func(nostr.Event) bool) nostr.Event {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		evs, err := c.Query(ctxT(t), nostr.Filter{Kinds: []int{kind}, Authors: []string{author}})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if ok(e) {
				return e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no kind %d by %s as wanted among %d", kind, author[:8], len(evs))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// run types a composer line, sends it, and waits for every one of want.
func run(t *testing.T, tm *teatest.TestModel, line string, want ...string) {
	t.Helper()
	tm.Type(line)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOut(t, tm, want...)
}
