package workflow

import (
	"fmt"
	"strings"

	"github.com/ainb/hive/workflow/expression"
	"go.yaml.in/yaml/v3"
)

// exprError records an expression error at its place in the file: the
// scalar's position plus the expression's offset, the message also giving
// the column inside the expression.
func (r *reader) exprError(n *yaml.Node, base int, e *expression.Error, what string) {
	p := pos(n)
	if m := scalarMap(r.lines, n); m != nil && base+e.Offset < len(m) {
		p = m[base+e.Offset]
	} else if m != nil && len(m) > 0 && base+e.Offset == len(m) { // at the end
		last := m[len(m)-1]
		p = Pos{Line: last.Line, Col: last.Col + 1}
	}
	if e.Line == 0 {
		r.errs.add(p, "%s: %s", what, e.Message)
		return
	}
	where := fmt.Sprintf("column %d", e.Col)
	if e.Line > 1 {
		where = fmt.Sprintf("line %d column %d", e.Line, e.Col)
	}
	r.errs.add(p, "%s: at %s of the expression: %s", what, where, e.Message)
}

// condition compiles a boolean expression (if:, when:). A whole ${{ }}
// around it is allowed and means the same.
func (r *reader) condition(n *yaml.Node, what string, scope expression.Scope) *Condition {
	src, ok := r.str(n, what)
	if !ok || !r.budget(n, 1) {
		return nil
	}
	base := 0
	if t := strings.TrimSpace(src); strings.HasPrefix(t, "${{") && strings.HasSuffix(t, "}}") && strings.Count(t, "${{") == 1 {
		inner := t[3 : len(t)-2]
		base = strings.Index(src, "${{") + 3
		lead := len(inner) - len(strings.TrimLeft(inner, " \t\r\n"))
		src, base = inner[lead:], base+lead
	}
	prog, e := expression.Compile(src, scope, true)
	if e != nil {
		r.exprError(n, base, e, what)
		return nil
	}
	return &Condition{Pos: pos(n), Source: src, Program: prog}
}

// text compiles a text with ${{ }} parts.
func (r *reader) text(n *yaml.Node, what string, scope expression.Scope) (Text, bool) {
	src, ok := r.str(n, what)
	if !ok || !r.budget(n, strings.Count(src, "${{")) {
		return Text{}, false
	}
	t, errs := expression.CompileTemplate(src, scope)
	for _, e := range errs {
		r.exprError(n, 0, e, what)
	}
	return Text{Pos: pos(n), Template: t}, len(errs) == 0
}
