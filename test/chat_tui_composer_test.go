package test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/chat"
)

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

	alice.typeText("first")
	alice.typeText("\x1b[13;2u") // Shift-Enter, CSI u
	alice.typeText("second")
	alice.keys("M-Enter")
	alice.typeText("third")
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

	alice.typeText("half a thought")
	alice.keys("C-n")
	alice.waitFor("random open with an empty composer", func(s string) bool {
		return strings.Contains(s, "#random") && !strings.Contains(s, "half a thought")
	})
	alice.typeText("random draft")
	alice.keys("C-p")
	alice.waitText("#general", "> half a thought")
	alice.keys("C-n")
	alice.waitText("#random", "> random draft")
}
