package chatui

import (
	"regexp"
	"strings"
	"testing"
)

// Markdown renders (emphasis and code lose their marks, lists their
// dashes), and untrusted text cannot reach the terminal through it: raw
// escapes and controls go before rendering, character references that
// decode to ESC or BEL go too, and the output holds only SGR sequences.
func TestMarkdownRendersAndStaysClean(t *testing.T) {
	md := newMarkdown()
	got := strings.Join(md.lines("hello **bold** and `code`\n- one\n- two", 40), "\n")
	plain := regexp.MustCompile("\x1b\\[[0-9;:]*m").ReplaceAllString(got, "")
	for _, want := range []string{"hello bold and", "code", "• one", "• two"} {
		if !strings.Contains(plain, want) {
			t.Fatalf("rendered %q: no %q", plain, want)
		}
	}
	if strings.Contains(plain, "**") || strings.Contains(plain, "`") {
		t.Fatalf("markdown marks left: %q", plain)
	}
	hostile := "*x* \x1b]2;pwned\x07\x1b[2J &#27;]0;title&#7; &#x1b;[31mred &#X9B;2J \u202eevil\u0090q\x1b\\ \u009b2J ok"
	out := strings.Join(md.lines(hostile, 60), "\n")
	if bad := regexp.MustCompile("\x1b(\\[[0-9;:]*m)?").ReplaceAllStringFunc(out, func(s string) string {
		if len(s) > 1 {
			return ""
		}
		return s
	}); strings.ContainsAny(bad, "\x1b\x07\u009b\u009d\u0090\u202e") {
		t.Fatalf("a control reached the output: %q", out)
	}
	plain = regexp.MustCompile("\x1b\\[[0-9;:]*m").ReplaceAllString(out, "")
	if !strings.Contains(plain, "red") || !strings.Contains(plain, "ok") {
		t.Fatalf("the text around the escapes is lost: %q", plain)
	}
	if strings.Contains(out, "\x1b[31m") || strings.Contains(out, "\x1b[2J") {
		t.Fatalf("a character reference became an escape: %q", out)
	}
}

// Plain text skips glamour: it wraps to the width and keeps its lines.
func TestPlainTextSkipsMarkdown(t *testing.T) {
	md := newMarkdown()
	if looksLikeMarkdown("just words, and a question?") {
		t.Fatal("plain words taken for markdown")
	}
	for _, s := range []string{"a *b*", "1. first", "- item", "see [x](y)", "`c`"} {
		if !looksLikeMarkdown(s) {
			t.Fatalf("%q not taken for markdown", s)
		}
	}
	got := md.lines("one two three four five six seven", 12)
	if len(got) < 3 || strings.TrimSpace(got[0]) != "one two" {
		t.Fatalf("plain text wrapped to %q", got)
	}
}

// A rendered line in colour ends without glamour's padding, so a short
// message sits on its author's line.
func TestMarkdownLinesUnpadded(t *testing.T) {
	for in, want := range map[string]string{
		"a \x1b[38;5;252m \x1b[0m\x1b[38;5;252m  \x1b[0m": "a\x1b[0m",
		"\x1b[1mbold\x1b[0m   ":                           "\x1b[1mbold\x1b[0m",
		"plain  ":                                         "plain",
	} {
		if got := trimStyledRight(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
