package expression

import (
	"strings"
	"testing"
	"time"
)

func TestTemplateRender(t *testing.T) {
	scope := Scope{Inputs: []Input{{Name: "version", Type: "string"}, {Name: "dry", Type: "boolean"}}, Steps: []string{"review"}}
	tpl, errs := CompileTemplate(`v${{ inputs.version }} dry=${{inputs.dry}} by ${{ steps.review.by }}: ${{ webhook.body.ref ?? "none" }} {{ not an expression }}`, scope)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	got, err := tpl.Render(Values{Inputs: map[string]any{"version": "1.2", "dry": true}, Steps: map[string]StepResult{"review": {By: "carol"}}, Webhook: Webhook{Body: map[string]any{}}})
	if want := "v1.2 dry=true by carol: none {{ not an expression }}"; err != nil || got != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	// a value that is missing at run time is an error naming the expression, never left in the text
	tpl, _ = CompileTemplate(`ref ${{ webhook.body.ref }}`, scope)
	if _, err := tpl.Render(Values{Webhook: Webhook{Body: map[string]any{}}}); err == nil || !strings.Contains(err.Error(), "${{webhook.body.ref}}: gives no value (nil)") {
		t.Fatalf("missing value: %v", err)
	}
}

func TestTemplateOffsets(t *testing.T) {
	src := `a ${{ trigger.text }} b ${{  trigger.nope }}`
	_, errs := CompileTemplate(src, Scope{})
	if len(errs) != 1 {
		t.Fatalf("errors %v", errs)
	}
	e := errs[0]
	// the offset is into the whole text; the column is inside the expression
	if src[e.Offset:e.Offset+4] != "nope" || e.Line != 1 || e.Col != 9 {
		t.Fatalf("offset %d (%q) col %d", e.Offset, src[e.Offset:], e.Col)
	}
	// }} inside a string literal does not end the expression
	tpl, errs := CompileTemplate(`${{ "}}" + trigger.text }}!`, Scope{})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if got, _ := tpl.Render(Values{Trigger: Trigger{Text: "x"}}); got != "}}x!" {
		t.Fatalf("got %q", got)
	}
	// nor do the braces of a map literal
	tpl, errs = CompileTemplate(`${{ toJSON({"a": {"b": trigger.text}}) }}`, Scope{})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if got, _ := tpl.Render(Values{Trigger: Trigger{Text: "x"}}); got != "{\n  \"a\": {\n    \"b\": \"x\"\n  }\n}" {
		t.Fatalf("got %q", got)
	}
}

func TestConditions(t *testing.T) {
	p, e := Compile(`trigger.text startsWith "!deploy " && "@workflows" in trigger.mentions && now.After(trigger.at)`, Scope{TriggerOnly: true}, true)
	if e != nil {
		t.Fatal(e)
	}
	v := Values{Trigger: Trigger{Text: "!deploy api", Mentions: []string{"@workflows"}, At: time.Unix(1, 0)}, Now: time.Unix(2, 0)}
	if got, err := p.Eval(v); err != nil || got != true {
		t.Fatalf("got %v %v", got, err)
	}
	v.Trigger.Text = "deploy"
	if got, _ := p.Eval(v); got != false {
		t.Fatalf("got %v", got)
	}
	for src, want := range map[string]string{
		`trigger.author.nam == ""`: `trigger.author has no field "nam": its fields are name, npub, is_agent`,
		`foo`:                      "unknown name foo: the names here are trigger, now",
		`steps.x.ok`:               "steps is not known when a trigger is matched: a trigger's when: may use trigger, now",
		`1 +`:                      "unexpected token EOF",
	} {
		if _, e := Compile(src, Scope{TriggerOnly: true}, true); e == nil || e.Message != want {
			t.Errorf("%s: %v, want %q", src, e, want)
		}
	}
	if _, e := CompileTime(`trigger.text`, Scope{}); e == nil || !strings.HasPrefix(e.Message, "this must give a time, and it gives string") {
		t.Errorf("until: %v", e)
	}
	if _, e := CompileTime(`now.Add(duration("2h"))`, Scope{}); e != nil {
		t.Errorf("until: %v", e)
	}
}

// ?. reads through a missing value, as spec/workflows.md says.
func TestOptionalChaining(t *testing.T) {
	tpl, errs := CompileTemplate(`${{ webhook.body?.ref ?? "none" }}`, Scope{})
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if got, err := tpl.Render(Values{}); err != nil || got != "none" {
		t.Fatalf("got %q %v", got, err)
	}
}
