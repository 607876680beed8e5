package chatui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestKeyConfig(t *testing.T) {
	home := t.TempDir()
	km, err := LoadKeys(home)
	if err != nil {
		t.Fatal(err)
	}
	if !km.is(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a"), Alt: true}, "next_unread") {
		t.Fatal("default next_unread is not alt+a")
	}
	os.WriteFile(filepath.Join(home, KeysFile), []byte("[keys]\nnext_unread = [\"ctrl+u\"]\n"), 0o600)
	km, err = LoadKeys(home)
	if err != nil {
		t.Fatal(err)
	}
	if !km.is(tea.KeyMsg{Type: tea.KeyCtrlU}, "next_unread") || km.is(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a"), Alt: true}, "next_unread") {
		t.Fatal("rebinding next_unread to ctrl+u did not replace alt+a")
	}
	if !km.is(tea.KeyMsg{Type: tea.KeyEnter}, "send") {
		t.Fatal("an action the file leaves out lost its default")
	}
	os.WriteFile(filepath.Join(home, KeysFile), []byte("[keys]\njump = [\"x\"]\n"), 0o600)
	if _, err := LoadKeys(home); err == nil || !strings.Contains(err.Error(), `no action "jump" (actions: send, newline`) {
		t.Fatalf("unknown action: %v", err)
	}
	os.WriteFile(filepath.Join(home, KeysFile), []byte("[keys]\nquit = []\n"), 0o600)
	if _, err := LoadKeys(home); err == nil || !strings.Contains(err.Error(), `action "quit" has no keys`) {
		t.Fatalf("empty keys: %v", err)
	}
	os.WriteFile(filepath.Join(home, KeysFile), []byte("[keys\n"), 0o600)
	if _, err := LoadKeys(home); err == nil || !strings.Contains(err.Error(), KeysFile) {
		t.Fatalf("bad TOML: %v", err)
	}
}
