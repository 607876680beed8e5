// Package expression is the one expression language of workflows
// (expr-lang/expr): if: and when: conditions and the ${{ }} parts of texts,
// compiled against a typed environment so that a misspelt name or field is
// an error when the definition is validated, not text in a message.
package expression

import (
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Author is who wrote a trigger's message or reaction.
type Author struct {
	Name    string `expr:"name"`
	Npub    string `expr:"npub"`
	IsAgent bool   `expr:"is_agent"`
}

// Channel is the workflow's channel.
type Channel struct {
	ID   string `expr:"id"`
	Name string `expr:"name"`
}

// Target is the row a reaction is on.
type Target struct {
	ID     string `expr:"id"`
	Text   string `expr:"text"`
	Author Author `expr:"author"`
}

// Trigger is what started the run.
type Trigger struct {
	Type     string    `expr:"type"` // message | reaction | schedule | webhook | manual
	ID       string    `expr:"id"`
	Text     string    `expr:"text"`
	Author   Author    `expr:"author"`
	Channel  Channel   `expr:"channel"`
	Thread   string    `expr:"thread"`
	Mentions []string  `expr:"mentions"`
	Emoji    string    `expr:"emoji"`
	Target   Target    `expr:"target"`
	At       time.Time `expr:"at"`
}

// Webhook is a verified webhook delivery; its body is whatever JSON came.
type Webhook struct {
	Event    string            `expr:"event"`
	Delivery string            `expr:"delivery"`
	Headers  map[string]string `expr:"headers"`
	Body     any               `expr:"body"`
}

// StepResult is what an earlier step left for the steps after it.
type StepResult struct {
	Outcome  string `expr:"outcome"` // success | skipped | failed
	Text     string `expr:"text"`
	ID       string `expr:"id"`
	Approved bool   `expr:"approved"`
	By       string `expr:"by"`
	Note     string `expr:"note"`
	// An http step's answer: its status, its body (the first 32 KiB), and
	// the body read as JSON (nil when it is none).
	Status int    `expr:"status"`
	Body   string `expr:"body"`
	JSON   any    `expr:"json"`
}

// Run is the run itself.
type Run struct {
	ID    string `expr:"id"`
	Short string `expr:"short"`
	URL   string `expr:"url"`
}

// Input is a declared input of a manual run: its name and type (string,
// boolean, number or choice).
type Input struct {
	Name string
	Type string
}

// Scope is what an expression may name.
type Scope struct {
	// TriggerOnly: only trigger and now (a trigger's when:, evaluated
	// before any run exists).
	TriggerOnly bool
	Inputs      []Input
	Steps       []string // the ids of the steps before this one
	Secrets     bool     // inside an http step

	typ *reflect.Type // set by Prepared: the environment type, built once
}

// Prepared is the scope with its environment type built, so that the
// expressions compiled in it (and in its copies) share one type.
func (s Scope) Prepared() Scope {
	t := s.envType()
	s.typ = &t
	return s
}

// names are the environment's top-level names in this scope.
func (s Scope) names() []string {
	if s.TriggerOnly {
		return []string{"trigger", "now"}
	}
	n := []string{"trigger", "inputs", "webhook", "steps", "run", "now"}
	if s.Secrets {
		n = append(n, "secrets")
	}
	return n
}

// envType is the Go type expressions of this scope are checked against: a
// struct built for the scope, so that inputs and step ids are fields and a
// misspelt one does not compile.
func (s Scope) envType() reflect.Type {
	if s.typ != nil {
		return *s.typ
	}
	var fields []reflect.StructField
	add := func(name string, t reflect.Type) {
		fields = append(fields, field(name, len(fields), t))
	}
	add("trigger", reflect.TypeOf(Trigger{}))
	if !s.TriggerOnly {
		var in []reflect.StructField
		for i, x := range s.Inputs {
			in = append(in, field(x.Name, i, inputType(x.Type)))
		}
		add("inputs", reflect.StructOf(in))
		add("webhook", reflect.TypeOf(Webhook{}))
		var st []reflect.StructField
		for i, id := range s.Steps {
			st = append(st, field(id, i, reflect.TypeOf(StepResult{})))
		}
		add("steps", reflect.StructOf(st))
		add("run", reflect.TypeOf(Run{}))
	}
	add("now", reflect.TypeOf(time.Time{}))
	if s.Secrets {
		add("secrets", reflect.TypeOf(map[string]string{}))
	}
	return reflect.StructOf(fields)
}

// field is a struct field whose expression name is name (the Go name only
// needs to be exported and unique: F0, F1, …).
func field(name string, i int, t reflect.Type) reflect.StructField {
	return reflect.StructField{Name: "F" + strconv.Itoa(i), Type: t, Tag: reflect.StructTag(`expr:"` + name + `"`)}
}

func inputType(t string) reflect.Type {
	switch t {
	case "boolean":
		return reflect.TypeOf(false)
	case "number":
		return reflect.TypeOf(float64(0))
	}
	return reflect.TypeOf("")
}

// fieldsAt lists the fields reachable at a dotted path of the scope's
// environment ("trigger.author"), or nil when the path is no struct.
func (s Scope) fieldsAt(path string) []string {
	t := s.envType()
	for _, p := range strings.Split(path, ".") {
		f, ok := fieldByTag(t, p)
		if !ok {
			return nil
		}
		t = f.Type
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		out = append(out, t.Field(i).Tag.Get("expr"))
	}
	return out
}

func fieldByTag(t reflect.Type, tag string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("expr") == tag {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// Values are what a run knows when it evaluates its expressions.
type Values struct {
	Trigger Trigger
	Inputs  map[string]any // by input name: string, bool or float64
	Webhook Webhook
	Steps   map[string]StepResult
	Run     Run
	Now     time.Time
	Secrets map[string]string // only given to http steps
}

// env is v as a value of the scope's environment type.
func (s Scope) env(v Values) any {
	e := reflect.New(s.envType()).Elem()
	set := func(name string, x any) {
		if f, ok := fieldByTag(e.Type(), name); ok {
			e.FieldByIndex(f.Index).Set(reflect.ValueOf(x))
		}
	}
	set("trigger", v.Trigger)
	set("webhook", v.Webhook)
	set("run", v.Run)
	set("now", v.Now)
	if s.Secrets && v.Secrets != nil {
		set("secrets", v.Secrets)
	}
	if f, ok := fieldByTag(e.Type(), "inputs"); ok {
		in := e.FieldByIndex(f.Index)
		for i := range in.NumField() {
			if x, ok := v.Inputs[in.Type().Field(i).Tag.Get("expr")]; ok && reflect.TypeOf(x) == in.Field(i).Type() {
				in.Field(i).Set(reflect.ValueOf(x))
			}
		}
	}
	if f, ok := fieldByTag(e.Type(), "steps"); ok {
		st := e.FieldByIndex(f.Index)
		for i := range st.NumField() {
			st.Field(i).Set(reflect.ValueOf(v.Steps[st.Type().Field(i).Tag.Get("expr")]))
		}
	}
	return e.Interface()
}
