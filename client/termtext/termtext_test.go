package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestLineShowsEveryControl(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain ünïcode 👍", "plain ünïcode 👍"},
		{"\x1b]52;c;UFdORUQ=\x07 hi", "^[]52;c;UFdORUQ=^G hi"},
		{"red \x1b[31mALERT", "red ^[[31mALERT"},
		{"a\rb\x08c\x00d\x7f", "a^Mb^Hc^@d^?"},
		{"two\nlines\tx", "two^Jlines^Ix"},
		{"c1 \u009b2J \u009d0;t\u009c", `c1 \u009b2J \u009d0;t\u009c`},
		{"rtl \u202eexe.txt\u2066", `rtl \u202eexe.txt\u2066`},
		{"bad \xff\x9b utf8", "bad \uFFFD\uFFFD utf8"},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBodyIndentsLinesAndKeepsTabs(t *testing.T) {
	got := Body("one\r\n2026-01-01 admin: fake\n\tthree\rfour\x1b[2A", "  ")
	want := "one\n  2026-01-01 admin: fake\n  \tthree^Mfour^[[2A"
	if got != want {
		t.Fatalf("Body = %q, want %q", got, want)
	}
}

// A Writer cleans what it is given however the writes cut it, a rune split
// between two writes included.
func TestWriterJoinsSplitRunes(t *testing.T) {
	in := "é\u009b👍\x1b[0m\nnext\t\u202e"
	for cut := 0; cut <= len(in); cut++ {
		var b bytes.Buffer
		w := NewWriter(&b)
		if n, err := w.Write([]byte(in[:cut])); err != nil || n != cut {
			t.Fatalf("Write: %d %v", n, err)
		}
		w.Write([]byte(in[cut:]))
		if want := "é\\u009b👍^[[0m\nnext\t\\u202e"; b.String() != want {
			t.Fatalf("cut at %d: %q, want %q", cut, b.String(), want)
		}
	}
}

func TestJSONEscapesC1AndBidi(t *testing.T) {
	v := map[string]string{"text": "a\u0085b\u009bc\u202ed\u2069e\x7f\x1bé👍"}
	b, _ := json.Marshal(v)
	got := JSON(b)
	if want := `{"text":"a\u0085b\u009bc\u202ed\u2069e\u007f\u001bé👍"}`; string(got) != want {
		t.Fatalf("JSON = %s, want %s", got, want)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["text"] != v["text"] {
		t.Fatalf("JSON changed the string: %q %v", back["text"], err)
	}
}

// Strip is what the terminal chat shows (tui/chatui's clean).
func TestStripDropsSequencesWhole(t *testing.T) {
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
		if got := Strip(c.in, false); got != c.want {
			t.Errorf("Strip(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Strip("a\n\x1b[1mb\x1b[0m\nc", true); got != "a\nb\nc" {
		t.Errorf("multiline: %q", got)
	}
}

func TestInvisible(t *testing.T) {
	for _, r := range "\u202a\u202e\u2066\u2069\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u061c\x1b\u0085" {
		if !Invisible(r) {
			t.Errorf("%U is not Invisible", r)
		}
	}
	for _, r := range "aé👍 -" {
		if Invisible(r) {
			t.Errorf("%U is Invisible", r)
		}
	}
	if strings.ContainsFunc("alice", Invisible) {
		t.Fatal("plain text holds an invisible rune")
	}
}
