package chatui

import (
	"strings"
	"unicode"
)

// clean makes untrusted text (message content, names, reasons) safe to put
// on a terminal: escape sequences (CSI, OSC, DCS and the two-byte ones) are
// dropped whole, other control characters and bidirectional overrides are
// dropped, a tab becomes spaces; newlines are kept only when multiline.
func clean(s string, multiline bool) string {
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
		case unicode.IsControl(r) || bidi(r):
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

// bidi reports the bidirectional controls that can reorder what a line
// shows (Trojan Source).
func bidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
