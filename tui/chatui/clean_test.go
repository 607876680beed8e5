package chatui

import "testing"

func TestCleanStripsTerminalControl(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"red \x1b[31mALERT\x1b[0m done", "red ALERT done"},
		{"clear\x1b[2J\x1b[Hscreen", "clearscreen"},
		{"title \x1b]0;pwned\x07 x", "title  x"},
		{"osc8 \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "osc8 link"},
		{"reset \x1bc here", "reset  here"},
		{"bell\x07 bs\x08 nul\x00", "bell bs nul"},
		{"c1 csi \u009b31m red", "c1 csi  red"},
		{"rtl \u202eexe.txt", "rtl exe.txt"},
		{"tab\there", "tab here"},
		{"two\nlines", "two lines"},
		{"cut \x1b[", "cut "},
		{"emoji 👍 ünïcode", "emoji 👍 ünïcode"},
	} {
		if got := clean(c.in, false); got != c.want {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := clean("a\n\x1b[1mb\x1b[0m\nc", true); got != "a\nb\nc" {
		t.Errorf("multiline: %q", got)
	}
}
