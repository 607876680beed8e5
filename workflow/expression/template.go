package expression

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MaxRendered bounds a rendered text (the bridge's reply cap).
const MaxRendered = 32 << 10

// Template is a text with ${{ expression }} parts.
type Template struct {
	Source string
	Parts  []Part
}

// Part is literal text, or an expression whose source starts at Offset
// (bytes) in the template's source.
type Part struct {
	Text   string
	Expr   *Program
	Offset int
}

// CompileTemplate compiles every ${{ }} of src in scope. Errors carry
// offsets into src.
func CompileTemplate(src string, scope Scope) (*Template, []*Error) {
	t := &Template{Source: src}
	var errs []*Error
	rest, base := src, 0
	for {
		i := strings.Index(rest, "${{")
		if i < 0 {
			if rest != "" {
				t.Parts = append(t.Parts, Part{Text: rest})
			}
			return t, errs
		}
		if i > 0 {
			t.Parts = append(t.Parts, Part{Text: rest[:i]})
		}
		open := base + i
		body := rest[i+3:]
		j := closing(body)
		if j < 0 {
			e := at(src, runeOffset(src, open), "this ${{ is not closed: end the expression with }}")
			e.Line, e.Col = 0, 0 // not inside an expression
			return t, append(errs, e)
		}
		code := body[:j]
		lead := len(code) - len(strings.TrimLeft(code, " \t\r\n"))
		code, off := strings.TrimRight(code[lead:], " \t\r\n"), open+3+lead
		if p, e := Compile(code, scope, false); e != nil {
			e.Offset += off
			errs = append(errs, e)
		} else {
			t.Parts = append(t.Parts, Part{Expr: p, Offset: off})
		}
		used := i + 3 + j + 2
		rest, base = rest[used:], base+used
	}
}

// Plain is the template's text when it has no expressions.
func (t *Template) Plain() (string, bool) {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Expr != nil {
			return "", false
		}
		b.WriteString(p.Text)
	}
	return b.String(), true
}

// closing is the offset of the "}}" that ends an expression in s, skipping
// string literals and the braces of map literals ({"a": {"b": 1}} ends
// no expression); -1 if there is none.
func closing(s string) int {
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\' && quote != '`':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '{':
			depth++
		case c == '}' && depth == 0 && i+1 < len(s) && s[i+1] == '}':
			return i
		case c == '}' && depth > 0:
			depth--
		}
	}
	return -1
}

func runeOffset(s string, byteOff int) int { return len([]rune(s[:byteOff])) }

// Render evaluates the template. A part that gives nothing (nil) is an
// error naming the expression, never left out or kept as text.
func (t *Template) Render(v Values) (string, error) {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Expr == nil {
			b.WriteString(p.Text)
			continue
		}
		x, err := p.Expr.Eval(v)
		if err != nil {
			return "", fmt.Errorf("${{%s}}: %w", p.Expr.Source, err)
		}
		s, err := stringify(x)
		if err != nil {
			return "", fmt.Errorf("${{%s}}: %w", p.Expr.Source, err)
		}
		b.WriteString(s)
		if b.Len() > MaxRendered {
			return "", fmt.Errorf("the text is over %d bytes", MaxRendered)
		}
	}
	return b.String(), nil
}

func stringify(x any) (string, error) {
	switch x := x.(type) {
	case nil:
		return "", fmt.Errorf("gives no value (nil): give a default with ??, e.g. ${{ x ?? \"none\" }}")
	case string:
		return x, nil
	case time.Time:
		return x.Format(time.RFC3339), nil
	case fmt.Stringer:
		return x.String(), nil
	case bool, int, int64, float64:
		return fmt.Sprint(x), nil
	}
	b, err := json.Marshal(x)
	return string(b), err
}
