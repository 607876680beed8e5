package test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// Scrollback: a channel of 150 messages, then 260 in one second (more than
// two pages) is paged from the hub with PgUp to its first message (the screen there shows them in order, none twice),
// and End jumps back to the newest. Then Ctrl-F finds in what is loaded:
// Enter shows the newest match with its count, Up the older one, Esc goes
// back to the newest rows.
func TestChatTUIScrollback(t *testing.T) {
	w := newChatWorld(t)
	bob := w.client(t, "bob")
	for i := range 150 { // older history: pages of the hub's
		if _, err := bob.Publish(ctxT(t), client.Message("general", fmt.Sprintf("early %03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	second := nostr.Now() + 20 // after the early ones (the hub takes events up to 15 min ahead)
	for i := range 260 {       // all in one second, ordered by their ms tags
		ev := client.Message("general", fmt.Sprintf("scroll %03d", i))
		ev.CreatedAt = second
		ev.Tags = append(ev.Tags, nostr.Tag{"ms", fmt.Sprint(i * 3)})
		if _, err := bob.Publish(ctxT(t), ev); err != nil {
			t.Fatal(err)
		}
	}
	alice := startChat(t, w.c.home, 80, 24, "general", "--profile", "alice")
	first := alice.waitText("● connected", "scroll 259")
	if shown := scrolled(first); len(shown) < 10 || !consecutive(shown) {
		t.Fatalf("the first screen shows a gap: %v\n%s", shown, first)
	}
	s := alice.waitFor("the channel's first message", func(s string) bool {
		if strings.Contains(s, "the beginning of #general") && strings.Contains(s, "early 000") {
			return true
		}
		alice.keys("PPage")
		return false
	})
	s = alice.waitText("▲ scrolled up · end jumps to the newest", "alice created the channel", "early 000")
	shown := scrolled(strings.ReplaceAll(s, "early ", "scroll "))
	if len(shown) < 5 || shown[0] != 0 || !consecutive(shown) {
		t.Fatalf("the top screen shows %v (a row doubled or missing):\n%s", shown, s)
	}
	alice.keys("End")
	alice.waitFor("the newest again", func(s string) bool {
		return strings.Contains(s, "scroll 259") && !strings.Contains(s, "scrolled up")
	})
	alice.keys("C-f")
	alice.keys("-l", "EARLY 00")
	alice.waitText("find: EARLY 00▏ · 10 matches · Enter jumps to the newest")
	alice.keys("Enter")
	s = alice.waitText("match 1 of 10 · Enter/↑ older", "early 009")
	if strings.Contains(s, "scroll 259") {
		t.Fatalf("the match did not scroll the view:\n%s", s)
	}
	alice.keys("Up")
	alice.waitText("match 2 of 10 · Enter/↑ older", "early 008")
	alice.keys("Escape")
	alice.waitFor("the newest after Esc", func(s string) bool {
		return strings.Contains(s, "scroll 259") && !strings.Contains(s, "find:") && !strings.Contains(s, "scrolled up")
	})
}

// scrolled are the numbers of the "scroll NNN" messages on a screen, in order.
func scrolled(screen string) []int {
	var out []int
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, "scroll "); i >= 0 && len(l) >= i+10 {
			if n, err := strconv.Atoi(l[i+7 : i+10]); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func consecutive(ns []int) bool {
	for i := 1; i < len(ns); i++ {
		if ns[i] != ns[i-1]+1 {
			return false
		}
	}
	return true
}

// The composer's long text: Shift-Enter (as a terminal with extended keys
// sends it) and Alt-Enter are new lines; Alt-E opens $EDITOR on the text
// (here a script that appends two lines), and what it saved is sent with
// Enter; a draft stays with its channel while another is open.
func TestChatTUIEditorAndDrafts(t *testing.T) {
	w := newChatWorld(t)
	w.c.ok("channel", "create", "random", "--profile", "alice")
	dir := t.TempDir()
	editor := filepath.Join(dir, "editor.sh")
	script := "#!/bin/sh\nprintf '\\nwritten in the editor\\nits last line\\n' >> \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	alice := startChatEnv(t, w.c.home, []string{"EDITOR=" + editor}, 100, 30, "general", "--profile", "alice")
	alice.waitText("#general", "● connected")

	alice.tmux("send-keys", "-t", "chat", "-l", "first")
	alice.tmux("send-keys", "-t", "chat", "-l", "\x1b[13;2u") // Shift-Enter, CSI u
	alice.tmux("send-keys", "-t", "chat", "-l", "second")
	alice.keys("M-Enter")
	alice.tmux("send-keys", "-t", "chat", "-l", "third")
	alice.waitText("> first", "> second", "> third")
	alice.keys("M-e")
	alice.waitText("> written in the editor", "> its last line", "from the editor: Enter sends")
	alice.keys("Enter")
	want := "first\nsecond\nthird\nwritten in the editor\nits last line"
	deadline := time.Now().Add(tuiDeadline)
	for !slices.ContainsFunc(w.history(t, "bob"), func(r chat.Row) bool { return r.Text == want }) {
		if time.Now().After(deadline) {
			t.Fatalf("no message %q stored; screen:\n%s", want, alice.screen())
		}
		time.Sleep(200 * time.Millisecond)
	}

	alice.tmux("send-keys", "-t", "chat", "-l", "half a thought")
	alice.keys("C-n")
	alice.waitFor("random open with an empty composer", func(s string) bool {
		return strings.Contains(s, "#random") && !strings.Contains(s, "half a thought")
	})
	alice.tmux("send-keys", "-t", "chat", "-l", "random draft")
	alice.keys("C-p")
	alice.waitText("#general", "> half a thought")
	alice.keys("C-n")
	alice.waitText("#random", "> random draft")
}
