// Package termtext makes untrusted text (what other members wrote, names,
// reasons, anything a hub relays) safe to write to a terminal: the one
// sanitiser of the CLI's human output and of the terminal chat.
//
// Two renderings share one classification of the dangerous runes (C0
// controls, DEL, the C1 controls U+0080-U+009F and the bidirectional
// controls):
//
//   - Line, Body and Writer show each one visibly (the CLI, spec/cli.md):
//     a C0 control or DEL in caret notation (^[ for ESC, ^G for BEL, ^? for
//     DEL), a C1 or bidirectional control as \u009b, a byte that is not
//     UTF-8 as U+FFFD; nothing a terminal acts on is left.
//   - Strip drops them, escape sequences whole (the chat, which renders
//     markdown around the text).
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bidi reports the bidirectional controls that can reorder what a line
// shows (Trojan Source): the embeddings and overrides U+202A-U+202E, the
// isolates U+2066-U+2069 and the marks U+200E, U+200F, U+061C.
func Bidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// Invisible reports the characters that take no room and show nothing,
// which a name could hide behind: the bidirectional controls, the
// zero-width space, non-joiner and joiner (U+200B-U+200D), the word joiner
// and invisible operators (U+2060-U+2064), U+FEFF, U+180E, the soft hyphen
// U+00AD and the controls themselves.
func Invisible(r rune) bool {
	return Bidi(r) || (r >= 0x200b && r <= 0x200d) || (r >= 0x2060 && r <= 0x2064) || r == 0xfeff || r == 0x180e || r == 0xad || unicode.IsControl(r)
}

// shown writes r visibly to b when a terminal would act on it (a control) or
// it could reorder the line (a bidirectional control), and reports whether
// it did; other runes are for the caller to write.
func shown(b *strings.Builder, r rune) bool {
	switch {
	case r < 0x20:
		b.WriteByte('^')
		b.WriteByte(byte(r) + 0x40)
	case r == 0x7f:
		b.WriteString("^?")
	case (r >= 0x80 && r <= 0x9f) || Bidi(r):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		return false
	}
	return true
}

// Line is s for a one-line field (a name, a channel, a reason, a status):
// every control, newline and tab included, shown visibly.
func Line(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // a byte that is not UTF-8 comes as U+FFFD
		if !shown(&b, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Body is s for a message body: as Line, but a tab stays, a newline (or CR
// LF) stays with indent after it, so that no line of a message starts where
// a row header would, and a CR of its own shows as ^M.
func Body(s, indent string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // a byte that is not UTF-8 comes as U+FFFD
		switch {
		case r == '\n':
			b.WriteByte('\n')
			b.WriteString(indent)
		case r == '\t':
			b.WriteByte('\t')
		case shown(&b, r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Writer passes text to w with every control but newline and tab shown
// visibly (Body without an indent), whatever its writer formatted: what
// the CLI prints for a person goes through one, so that a field a command
// forgot to clean still cannot reach the terminal raw. A rune cut between
// two writes is joined first; one never completed is dropped.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter is a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p cleaned; it reports len(p) when the cleaned text was
// written.
func (w *Writer) Write(p []byte) (int, error) {
	data := append(w.pending, p...)
	cut := len(data)
	for back := 1; back <= utf8.UTFMax-1 && back <= len(data); back++ {
		c := data[len(data)-back]
		if c < 0x80 {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(data[len(data)-back:]) {
				cut = len(data) - back
			}
			break
		}
	}
	w.pending = append([]byte(nil), data[cut:]...)
	if _, err := io.WriteString(w.w, Body(string(data[:cut]), "")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// JSON escapes, in encoded JSON, what encoding/json leaves raw and a
// terminal could act on or reorder: DEL, U+0080-U+009F and the
// bidirectional controls become \u escapes (the same string to a JSON
// reader). Outside strings JSON has only ASCII, so only strings change.
func JSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) || Bidi(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// Strip is s with every escape sequence (CSI, OSC, DCS and the two-byte
// ones) dropped whole, every other control and bidirectional control
// dropped, a tab as a space; newlines are kept only when multiline (else
// each is a space). The terminal chat shows text this way.
func Strip(s string, multiline bool) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == 0x1b || r == 0x9b || r == 0x9d || r == 0x90:
			i = skipEscape(rs, i)
		case r == '\n' && multiline:
			b.WriteRune('\n')
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || Bidi(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// skipEscape returns the index of the last rune of the escape sequence
// starting at i.
func skipEscape(rs []rune, i int) int {
	kind := rs[i]
	if kind == 0x1b {
		if i+1 >= len(rs) {
			return i
		}
		i++
		switch rs[i] {
		case '[':
			kind = 0x9b
		case ']', 'P', '_', '^', 'X':
			kind = 0x9d
		default:
			return i // a two-byte sequence (ESC c, ESC 7, ...)
		}
	}
	for i+1 < len(rs) {
		i++
		r := rs[i]
		switch {
		case kind == 0x9b && r >= 0x40 && r <= 0x7e: // CSI final byte
			return i
		case kind != 0x9b && r == 0x07: // string terminated by BEL
			return i
		case kind != 0x9b && (r == 0x9c || (r == 0x1b && i+1 < len(rs) && rs[i+1] == '\\')):
			if r == 0x1b {
				i++
			}
			return i
		case kind == 0x9b && (r < 0x20 || r > 0x3f) && !(r >= 0x20 && r <= 0x2f):
			return i - 1 // not a CSI parameter: the sequence was cut short
		}
	}
	return i
}
