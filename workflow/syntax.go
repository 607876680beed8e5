package workflow

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// syntaxError places a YAML syntax error. yaml.v3 names a line only (and
// for some errors a 0-based one), so the position is found here: first a
// scan for a construct left open (a quote or bracket never closed, a
// bracket closed by the other kind) or a tab in the indentation, each
// placed exactly; otherwise the line yaml names, read from a parse of the
// file behind one comment line (which makes its numbering 1-based for
// every error), at that line's first character.
func syntaxError(src []byte, err error) Error {
	if e, ok := openConstruct(string(src)); ok {
		return e
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var n yaml.Node
	if err2 := yaml.Unmarshal(append([]byte("#\n"), src...), &n); err2 != nil {
		msg = strings.TrimPrefix(err2.Error(), "yaml: ")
	}
	line := 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if scannerProblem(msg) {
			line-- // scanner errors are numbered from 1, and the comment line
		}
	}
	lines := strings.Split(string(src), "\n")
	line = max(1, min(line, len(lines)))
	text := lines[line-1]
	col := utf8.RuneCountInString(text[:len(text)-len(strings.TrimLeft(text, " "))]) + 1
	return Error{Pos: Pos{Line: line, Col: col}, Message: "invalid YAML: " + msg + ": " + syntaxFix(msg)}
}

var yamlLine = regexp.MustCompile(`^line (\d+): `)

// scannerProblem tells yaml's scanner problems (numbered from 1) from its
// parser problems (numbered from 0).
func scannerProblem(msg string) bool {
	for _, p := range []string{"found character that cannot start any token", "mapping values are not allowed", "found a tab character", "found unexpected end of stream", "found unknown escape character", "did not find URI escaped octet", "could not find expected ':'", "did not find expected comment or line break", "did not find expected whitespace or line break", "found unexpected non-alphabetical character", "did not find expected alphabetic or numeric character", "block sequence entries are not allowed", "found incompatible YAML document", "found an indentation indicator equal to 0", "did not find expected hexdecimal number", "found invalid Unicode character escape code", "did not find expected '!'", "did not find expected tag URI", "found unexpected ':'", "found a tab character where an indentation space is expected"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func syntaxFix(msg string) string {
	switch {
	case strings.HasPrefix(msg, "mapping values are not allowed"):
		return `a value holds ": " or the line is indented under a key whose value is already given; quote the value ("…") or fix the indentation`
	case strings.HasPrefix(msg, "did not find expected '-' indicator"):
		return "the list that starts here goes on with a line that is not an item: indent every item's keys alike, under its \"- \""
	case strings.HasPrefix(msg, "did not find expected key"):
		return "the mapping that starts here goes on with a line that is not a key: check the indentation of the lines below it"
	case strings.HasPrefix(msg, "found unknown escape character"):
		return `in a double-quoted string a backslash starts an escape (\n, \t, \", \\): write \\ for a backslash, or use single quotes`
	case strings.HasPrefix(msg, "unknown anchor"):
		return "an alias (*name) needs an anchor (&name) before it"
	}
	return "check the indentation and the quoting here"
}

// opener is a quote or bracket not yet closed.
type opener struct {
	c   byte
	pos Pos
}

// openConstruct scans for the syntax errors whose place it can know
// exactly: a tab in the indentation, a quoted string or a flow collection
// ([ ] or { }) that is never closed, or closed by the other bracket.
func openConstruct(src string) (Error, bool) {
	lines := strings.Split(src, "\n")
	var flow []opener
	var quote *opener
	blockIndent := -1 // inside a block scalar: the indentation of its parent
	for li, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if blockIndent >= 0 {
			if strings.TrimSpace(line) == "" || indent > blockIndent {
				continue
			}
			blockIndent = -1
		}
		colOf := func(i int) Pos { return Pos{Line: li + 1, Col: utf8.RuneCountInString(line[:i]) + 1} }
		i := 0
		if quote == nil && len(flow) == 0 {
			ws := len(line) - len(strings.TrimLeft(line, " \t"))
			if t := strings.IndexByte(line[:ws], '\t'); t >= 0 && ws < len(line) && line[ws] != '#' {
				return Error{Pos: colOf(t), Message: "invalid YAML: a tab in the indentation: YAML indents with spaces only"}, true
			}
			i = ws
		}
		start := true  // at the start of a node
		afterKey := -1 // in a block mapping's value: where its plain text began
		for i < len(line) {
			c := line[i]
			if quote != nil {
				switch {
				case c == '\\' && quote.c == '"':
					if i+1 < len(line) && !validEscape(line[i+1]) {
						return Error{Pos: colOf(i), Message: fmt.Sprintf(`invalid YAML: unknown escape \%c in a double-quoted string: write \\ for a backslash, or use single quotes`, line[i+1])}, true
					}
					i++
				case c == '\'' && quote.c == '\'' && i+1 < len(line) && line[i+1] == '\'':
					i++
				case c == quote.c:
					quote, start = nil, false
				}
				i++
				continue
			}
			space := i == 0 || line[i-1] == ' ' || line[i-1] == '\t'
			switch {
			case c == '#' && space:
				i = len(line)
				continue
			case c == ' ' || c == '\t':
			case (c == '"' || c == '\'') && start:
				quote = &opener{c: c, pos: colOf(i)}
			case (c == '[' || c == '{') && (start || len(flow) > 0):
				flow = append(flow, opener{c: c, pos: colOf(i)})
				start = true
			case (c == ']' || c == '}') && len(flow) > 0:
				top := flow[len(flow)-1]
				if want := map[byte]byte{'[': ']', '{': '}'}[top.c]; c != want {
					return Error{Pos: top.pos, Message: fmt.Sprintf("invalid YAML: this %c is closed by %c at %d:%d: close it with %c", top.c, c, li+1, colOf(i).Col, want)}, true
				}
				flow, start = flow[:len(flow)-1], false
			case c == ',' && len(flow) > 0:
				start = true
			case c == ':' && (i+1 == len(line) || line[i+1] == ' ' || len(flow) > 0):
				if len(flow) == 0 && afterKey >= 0 {
					return Error{Pos: colOf(i), Message: `invalid YAML: a second ": " in the value that starts at column ` + strconv.Itoa(colOf(afterKey).Col) + `: quote the value ("…") if the colon is text`}, true
				}
				start = true
				if len(flow) == 0 {
					afterKey = -2 // the value's text has not started
				}
			case c == '-' && start && len(flow) == 0 && (i+1 == len(line) || line[i+1] == ' '):
			case (c == '|' || c == '>') && start && len(flow) == 0:
				blockIndent = indent
				i = len(line)
				continue
			case (c == '&' || c == '!' || c == '*') && start:
				for i < len(line) && line[i] != ' ' {
					i++
				}
				continue
			default:
				if start && afterKey == -2 {
					afterKey = i
				}
				start = false
			}
			i++
		}
	}
	switch {
	case quote != nil:
		kind := map[byte]string{'"': "double", '\'': "single"}[quote.c]
		return Error{Pos: quote.pos, Message: fmt.Sprintf("invalid YAML: this %s-quoted string is never closed: end it with %c", kind, quote.c)}, true
	case len(flow) > 0:
		top := flow[len(flow)-1]
		want := map[byte]byte{'[': ']', '{': '}'}[top.c]
		return Error{Pos: top.pos, Message: fmt.Sprintf("invalid YAML: this %c is never closed: close it with %c", top.c, want)}, true
	}
	return Error{}, false
}

// validEscape tells whether c may follow a backslash in a double-quoted
// string.
func validEscape(c byte) bool {
	_, ok := escapes[c]
	return ok || c == 'x' || c == 'u' || c == 'U'
}
