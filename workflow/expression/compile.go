package expression

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Budgets of one expression (spec/workflows.md, "Limits").
const (
	MaxBytes = 1024
	MaxNodes = 1000
)

// Program is a compiled expression.
type Program struct {
	Source string
	scope  Scope
	prog   *vm.Program
}

// Error is an expression that does not compile: where (a byte offset into
// the text compiled, and the 1-based line and column inside the expression,
// counted in characters; 0 when the problem is outside any expression, as
// for a ${{ never closed) and what.
type Error struct {
	Offset    int
	Line, Col int
	Message   string
}

func (e *Error) Error() string { return e.Message }

// Compile compiles src in scope; asBool requires a true-or-false result.
func Compile(src string, scope Scope, asBool bool) (*Program, *Error) {
	if strings.TrimSpace(src) == "" {
		return nil, &Error{Line: 1, Col: 1, Message: "the expression is empty: write one, e.g. trigger.text startsWith \"!deploy\""}
	}
	if len(src) > MaxBytes {
		return nil, &Error{Line: 1, Col: 1, Message: fmt.Sprintf("the expression is %d bytes: at most %d; split the logic over steps", len(src), MaxBytes)}
	}
	if e := scope.refuseSecrets(src); e != nil {
		return nil, e
	}
	opts := []expr.Option{expr.Env(reflectEnv(scope)), expr.MaxNodes(MaxNodes)}
	if asBool {
		opts = append(opts, expr.AsBool())
	}
	prog, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, scope.explain(src, err, asBool)
	}
	return &Program{Source: src, scope: scope, prog: prog}, nil
}

// reflectEnv is a zero value of the scope's environment type.
func reflectEnv(s Scope) any { return s.env(Values{}) }

// Eval runs the program over what the run knows.
func (p *Program) Eval(v Values) (any, error) {
	return expr.Run(p.prog, p.scope.env(v))
}

// refuseSecrets finds a use of secrets outside an http step.
func (s Scope) refuseSecrets(src string) *Error {
	if s.Secrets {
		return nil
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil // Compile reports it
	}
	var found *Error
	ast.Find(tree.Node, func(n ast.Node) bool {
		id, ok := n.(*ast.IdentifierNode)
		if ok && id.Value == "secrets" && found == nil {
			found = at(src, id.Location().From, "secrets are usable only inside an http step (its url, headers and body): move the call into an http step")
		}
		return false
	})
	return found
}

var (
	noField     = regexp.MustCompile(`^type .* has no field (\S+)$`)
	unknownName = regexp.MustCompile(`^unknown name (\S+)$`)
	notBool     = regexp.MustCompile(`^expected bool, but got (.+)$`)
)

// explain turns expr's error into one that names the field or type at
// fault, its position in the expression, and the fix.
func (s Scope) explain(src string, err error, asBool bool) *Error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		msg := err.Error()
		if m := notBool.FindStringSubmatch(msg); m != nil && asBool {
			msg = fmt.Sprintf("this must be true or false, and the expression gives %s: compare it, e.g. %s == \"…\"", m[1], strings.TrimSpace(src))
		}
		return &Error{Line: 1, Col: 1, Message: msg}
	}
	msg := fe.Message
	if m := unknownName.FindStringSubmatch(msg); m != nil {
		msg = s.unknownName(m[1])
	} else if m := noField.FindStringSubmatch(msg); m != nil {
		msg = s.noField(src, fe.From, m[1])
	}
	return at(src, fe.From, msg)
}

func (s Scope) unknownName(name string) string {
	names := strings.Join(s.names(), ", ")
	switch {
	case s.TriggerOnly && (name == "inputs" || name == "steps" || name == "webhook" || name == "run"):
		return fmt.Sprintf("%s is not known when a trigger is matched: a trigger's when: may use %s", name, names)
	case name == "secrets":
		return "secrets are usable only inside an http step (its url, headers and body)"
	}
	return fmt.Sprintf("unknown name %s: the names here are %s", name, names)
}

// noField names the object whose field is missing (the member expression
// at offset from) and lists the fields it has.
func (s Scope) noField(src string, from int, field string) string {
	obj := memberObject(src, from)
	fields := s.fieldsAt(obj)
	switch obj {
	case "steps":
		if len(fields) == 0 {
			return fmt.Sprintf("no step %q before this one: a step can use only the steps before it, and this is the first", field)
		}
		return fmt.Sprintf("no step %q before this one: the steps before it are %s", field, strings.Join(fields, ", "))
	case "inputs":
		if len(fields) == 0 {
			return fmt.Sprintf("no input %q: declare it under on: manual: inputs:", field)
		}
		return fmt.Sprintf("no input %q: the inputs are %s (declared under on: manual: inputs:)", field, strings.Join(fields, ", "))
	}
	if obj == "" || fields == nil {
		return fmt.Sprintf("no field %q here", field)
	}
	return fmt.Sprintf("%s has no field %q: its fields are %s", obj, field, strings.Join(fields, ", "))
}

// memberObject is the dotted path of the object of the member expression
// whose property starts at rune offset from ("trigger.author" for
// trigger.author.nam), or "" when it is not a plain path.
func memberObject(src string, from int) string {
	tree, err := parser.Parse(src)
	if err != nil {
		return ""
	}
	var obj string
	ast.Find(tree.Node, func(n ast.Node) bool {
		m, ok := n.(*ast.MemberNode)
		if !ok || m.Property.Location().From != from {
			return false
		}
		if p, ok := dotted(m.Node); ok {
			obj = p
		}
		return true
	})
	return obj
}

func dotted(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return n.Value, true
	case *ast.MemberNode:
		base, ok := dotted(n.Node)
		prop, isStr := n.Property.(*ast.StringNode)
		if !ok || !isStr {
			return "", false
		}
		return base + "." + prop.Value, true
	}
	return "", false
}

// at is an error at rune offset from of src.
func at(src string, from int, msg string) *Error {
	e := &Error{Line: 1, Col: 1, Message: msg}
	runes := 0
	for i, r := range src {
		if runes == from {
			e.Offset = i
			return e
		}
		runes++
		if r == '\n' {
			e.Line++
			e.Col = 1
		} else {
			e.Col++
		}
	}
	e.Offset = len(src)
	return e
}

var timeType = reflect.TypeOf(time.Time{})

// CompileTime compiles an expression that gives a time (wait: until:).
func CompileTime(src string, scope Scope) (*Program, *Error) {
	p, e := Compile(src, scope, false)
	if e != nil {
		return nil, e
	}
	if t := p.prog.Node().Type(); t != nil && t != timeType && t.Kind() != reflect.Interface {
		return nil, &Error{Line: 1, Col: 1, Message: fmt.Sprintf("this must give a time, and it gives %s: e.g. now.Add(duration(\"2h\")) or date(\"2026-05-01T09:00:00Z\")", t)}
	}
	return p, nil
}
