package chatui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/session"
	"github.com/ainb/hive/kinds"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// Find in the channel: Ctrl-F opens the prompt, typing highlights and
// counts without moving, Enter shows the newest match at the top of the
// timeline, Enter/Up go older, Down newer, a query nothing loaded matches
// says so on one line, Esc goes back to the bottom where the view was.
// Names in the text are matched as shown (an @mention by its name).
func TestFindInChannel(t *testing.T) {
	w := newWorld(t)
	m := New(ctxT(t), w.alice, Options{Channel: "general"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	base := time.Now().Add(-10 * time.Hour).Unix() // rows 400 s apart: each under its name
	npub, _ := nip19.EncodePublicKey(w.alice.PublicKey())
	var evs []nostr.Event
	for _, c := range []struct {
		c    *client.Client
		name string
	}{{w.alice, "alice"}, {w.bob, "bob"}} {
		p, err := c.c.Sign(nostr.Event{Kind: kinds.Profile, Content: `{"name":"` + c.name + `"}`, Tags: nostr.Tags{}})
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, p)
	}
	for i := range 80 {
		ev := client.Message("general", fmt.Sprintf("hay %02d", i))
		if i%20 == 5 {
			ev = client.Message("general", fmt.Sprintf("a NEEDLE %02d for nostr:%s", i, npub))
			ev.Tags = append(ev.Tags, nostr.Tag{"p", w.alice.PublicKey()})
		}
		ev.CreatedAt = nostr.Timestamp(base + 400*int64(i))
		s, err := w.bob.Sign(ev)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, s)
	}
	m.Update(session.Loaded{Channels: []client.Channel{{ID: "general", Name: "general"}}, Events: evs})
	screen := func() string { return m.View() }
	if !strings.Contains(screen(), "hay 79") || strings.Contains(screen(), "NEEDLE 45") {
		t.Fatalf("not at the bottom before find:\n%s", screen())
	}
	key := func(k tea.KeyMsg) { m.Update(k) }
	key(tea.KeyMsg{Type: tea.KeyCtrlF})
	if s := screen(); !strings.Contains(s, "find: ▏ · type to find in the loaded messages (/search TEXT searches the hub)") {
		t.Fatalf("no find prompt:\n%s", s)
	}
	for _, r := range "needle" {
		key(text(string(r)))
	}
	if s := screen(); !strings.Contains(s, "find: needle▏ · 4 matches · Enter jumps to the newest") || !strings.Contains(s, "hay 79") {
		t.Fatalf("typing moved the view or did not count:\n%s", s)
	}
	if m.composer.Value() != "" {
		t.Fatalf("the query went to the composer: %q", m.composer.Value())
	}
	shows := func(row, count string) {
		t.Helper()
		view := m.timeline.View()
		if !strings.Contains(view, row) || !strings.Contains(screen(), "match "+count+" · Enter/↑ older · ↓ newer · Esc back") {
			t.Fatalf("want %q and match %s:\n%s", row, count, screen())
		}
	}
	key(enter)
	shows("bob: a NEEDLE 65 for @alice", "1 of 4")
	key(enter)
	shows("NEEDLE 45", "2 of 4")
	if top := strings.Split(m.timeline.View(), "\n"); strings.Contains(m.timeline.View(), "hay 79") || !strings.Contains(top[1], "bob: a NEEDLE 45 for @alice") {
		t.Fatalf("the match is not at the top of the timeline:\n%s", m.timeline.View())
	}
	key(tea.KeyMsg{Type: tea.KeyUp})
	shows("NEEDLE 25", "3 of 4")
	key(tea.KeyMsg{Type: tea.KeyUp})
	shows("NEEDLE 05", "4 of 4")
	key(enter) // the oldest: stays
	shows("NEEDLE 05", "4 of 4")
	key(tea.KeyMsg{Type: tea.KeyDown})
	shows("NEEDLE 25", "3 of 4")

	for range 6 {
		key(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	for _, r := range "@ALICE" { // the mention as its name shows
		key(text(string(r)))
	}
	key(enter)
	shows("NEEDLE 65", "1 of 4")

	key(tea.KeyMsg{Type: tea.KeyCtrlU})
	key(text("nowhere"))
	key(enter)
	if s := screen(); !strings.Contains(s, `find: nowhere▏ · no loaded message contains "nowhere" · /search asks the hub`) {
		t.Fatalf("no clear no-match line:\n%s", s)
	}
	key(tea.KeyMsg{Type: tea.KeyEsc})
	if s := screen(); strings.Contains(s, "find:") || !m.timeline.AtBottom() || !strings.Contains(m.timeline.View(), "hay 79") {
		t.Fatalf("Esc did not close find and go back to the bottom:\n%s", s)
	}
	key(text("x"))
	if m.composer.Value() != "x" {
		t.Fatalf("after Esc typing is not the composer's: %q", m.composer.Value())
	}
}
