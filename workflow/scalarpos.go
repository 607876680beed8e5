package workflow

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// scalarMap maps the bytes of a scalar's value to their file positions, so
// that an error inside an expression points at its character in the file.
// It re-reads the scalar's source text (plain, quoted or block) and checks
// that what it read is the value yaml decoded; nil when it is not (then
// errors point at the scalar's start).
func scalarMap(lines []string, n *yaml.Node) []Pos {
	if n.Line < 1 || n.Line > len(lines) {
		return nil
	}
	r := &scalarReader{lines: lines, li: n.Line - 1}
	r.bi = byteIndex(lines[r.li], n.Column-1)
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		r.bi++
		r.quoted('"')
	case n.Style&yaml.SingleQuotedStyle != 0:
		r.bi++
		r.quoted('\'')
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		r.block(n.Style&yaml.FoldedStyle != 0)
	default:
		r.plain(len(n.Value))
	}
	if r.out.String() != n.Value {
		return nil
	}
	return r.pos
}

type scalarReader struct {
	lines  []string
	li, bi int // cursor: line index, byte index in it
	out    strings.Builder
	pos    []Pos
}

func (r *scalarReader) here() Pos {
	return Pos{Line: r.li + 1, Col: utf8.RuneCountInString(r.lines[r.li][:r.bi]) + 1}
}

// emit appends s to the value, every byte at position p.
func (r *scalarReader) emit(s string, p Pos) {
	r.out.WriteString(s)
	for range len(s) {
		r.pos = append(r.pos, p)
	}
}

// fold moves past a line break and the next line's indentation, emitting
// what YAML folds them into: a space, or one newline per empty line.
func (r *scalarReader) fold() bool {
	p := r.here()
	empty := 0
	for {
		r.li++
		r.bi = 0
		if r.li >= len(r.lines) {
			return false
		}
		line := r.lines[r.li]
		r.bi = len(line) - len(strings.TrimLeft(line, " \t"))
		if r.bi < len(line) {
			break
		}
		empty++
	}
	if empty == 0 {
		r.emit(" ", p)
	} else {
		r.emit(strings.Repeat("\n", empty), p)
	}
	return true
}

func (r *scalarReader) plain(want int) {
	for r.out.Len() < want {
		line := r.lines[r.li]
		if r.bi >= len(strings.TrimRight(line, " \t")) {
			if !r.fold() {
				return
			}
			continue
		}
		_, size := utf8.DecodeRuneInString(line[r.bi:])
		r.emit(line[r.bi:r.bi+size], r.here())
		r.bi += size
	}
}

func (r *scalarReader) quoted(q byte) {
	for {
		line := r.lines[r.li]
		if r.bi >= len(line) {
			// trailing spaces before a break are not content
			r.trimTrailing()
			if !r.fold() {
				return
			}
			continue
		}
		c := line[r.bi]
		switch {
		case c == q && q == '\'' && r.bi+1 < len(line) && line[r.bi+1] == '\'':
			r.emit("'", r.here())
			r.bi += 2
			continue
		case c == q:
			return
		case c == '\\' && q == '"':
			if !r.escape() {
				return
			}
			continue
		}
		_, size := utf8.DecodeRuneInString(line[r.bi:])
		r.emit(line[r.bi:r.bi+size], r.here())
		r.bi += size
	}
}

// trimTrailing drops spaces emitted just before a line break.
func (r *scalarReader) trimTrailing() {
	s := r.out.String()
	t := strings.TrimRight(s, " \t")
	if len(t) < len(s) {
		r.out.Reset()
		r.out.WriteString(t)
		r.pos = r.pos[:len(t)]
	}
}

var escapes = map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f", 'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"", '/': "/", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}

// escape reads one backslash escape of a double-quoted scalar.
func (r *scalarReader) escape() bool {
	line, p := r.lines[r.li], r.here()
	if r.bi+1 >= len(line) { // an escaped line break: joins the lines
		r.li++
		if r.li >= len(r.lines) {
			return false
		}
		l := r.lines[r.li]
		r.bi = len(l) - len(strings.TrimLeft(l, " \t"))
		return true
	}
	c := line[r.bi+1]
	if s, ok := escapes[c]; ok {
		r.emit(s, p)
		r.bi += 2
		return true
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width == 0 || r.bi+2+width > len(line) {
		return false
	}
	var v rune
	for _, h := range line[r.bi+2 : r.bi+2+width] {
		d := strings.IndexRune("0123456789abcdef", h|0x20)
		if d < 0 {
			return false
		}
		v = v*16 + rune(d)
	}
	r.emit(string(v), p)
	r.bi += 2 + width
	return true
}

// block reads a literal (|) or folded (>) block scalar: the lines after the
// indicator that are indented more than the indicator's line.
func (r *scalarReader) block(folded bool) {
	header := r.lines[r.li]
	parent := len(header) - len(strings.TrimLeft(header, " "))
	chomp := byte(0) // clip; '-' strip, '+' keep
	for _, c := range []byte(header[min(r.bi+1, len(header)):]) {
		if c == '-' || c == '+' {
			chomp = c
		} else if c == ' ' || c == '#' {
			break
		}
	}
	indent := -1
	var pending []Pos // line breaks not yet emitted
	prevText := false
	for r.li+1 < len(r.lines) {
		line := r.lines[r.li+1]
		ind := len(line) - len(strings.TrimLeft(line, " "))
		blank := strings.TrimSpace(line) == ""
		if !blank && (ind <= parent || indent >= 0 && ind < indent) {
			break
		}
		r.li++
		if blank {
			pending = append(pending, Pos{Line: r.li + 1, Col: 1})
			continue
		}
		if indent < 0 {
			indent = ind
		}
		if prevText {
			r.breaks(folded, pending, line[indent] == ' ')
		} else {
			for _, p := range pending {
				r.emit("\n", p)
			}
		}
		pending = pending[:0]
		r.bi = indent
		for r.bi < len(line) {
			_, size := utf8.DecodeRuneInString(line[r.bi:])
			r.emit(line[r.bi:r.bi+size], r.here())
			r.bi += size
		}
		pending = append(pending, Pos{Line: r.li + 1, Col: utf8.RuneCountInString(line) + 1})
		prevText = true
	}
	switch {
	case !prevText || chomp == '-':
	case chomp == '+':
		for _, p := range pending {
			r.emit("\n", p)
		}
	default: // clip: one final line break
		r.emit("\n", pending[0])
	}
}

// breaks emits the line breaks between two text lines of a block scalar:
// kept in a literal one, folded (one break into a space, n+1 into n) in a
// folded one unless the next line is more indented.
func (r *scalarReader) breaks(folded bool, pending []Pos, moreIndented bool) {
	if !folded || moreIndented {
		for _, p := range pending {
			r.emit("\n", p)
		}
		return
	}
	if len(pending) == 1 {
		r.emit(" ", pending[0])
		return
	}
	for _, p := range pending[1:] {
		r.emit("\n", p)
	}
}

// byteIndex is the byte index of the col-th character (0-based) of line.
func byteIndex(line string, col int) int {
	i := 0
	for n := 0; n < col && i < len(line); n++ {
		_, size := utf8.DecodeRuneInString(line[i:])
		i += size
	}
	return i
}
