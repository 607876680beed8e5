package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/workflow/expression"
)

func example(t *testing.T, file string) *Definition {
	t.Helper()
	path := filepath.Join("..", "examples", "workflows", file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func actionsOf(d *Definition) string {
	var a []string
	for _, s := range d.Steps {
		a = append(a, s.ID+":"+s.Action)
	}
	return strings.Join(a, " ")
}

// The examples read into the definitions they say, and their texts render
// over what a run would know.
func TestExamples(t *testing.T) {
	d := example(t, "standup.yaml")
	s := d.On.Schedule[0]
	if d.Name != "standup" || d.Channel != "team" || s.Schedule.Loc.String() != "Europe/Berlin" || s.MaxLate != 30*time.Minute || actionsOf(d) != "prompt:post" || d.Steps[0].Post.In != "channel" {
		t.Errorf("standup: %+v %+v", d, s)
	}
	slot := s.Schedule.Slots(time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC), 1)[0] // a Saturday: Monday is next
	got, err := d.Steps[0].Post.Text.Template.Render(expression.Values{Trigger: expression.Trigger{Type: "schedule", At: slot.At}})
	if want := "Stand-up for Monday 30 March:\nwhat did you do yesterday, what will you do today, is anything in your way?"; err != nil || got != want {
		t.Errorf("standup text %q %v", got, err)
	}

	d = example(t, "deploy.yaml")
	gate := d.Steps[2].Approval
	if d.Concurrency != "single" || d.On.Message.From.Kind != "people" || d.On.Message.Threads != "top" || actionsOf(d) != "ack:react review:ask_agent gate:approval deploy:http done:post" ||
		d.Steps[1].Timeout != 20*time.Minute || gate.Timeout != 4*time.Hour || strings.Join(gate.Approvers, ",") != "channel-admins" || gate.Min != 1 || gate.AllowSelf || d.Steps[3].HTTP.Method != "POST" {
		t.Errorf("deploy: %s %+v", actionsOf(d), gate)
	}
	v := expression.Values{Trigger: expression.Trigger{Type: "message", Text: "!deploy api ", Author: expression.Author{Name: "alice"}}}
	if ok, err := d.On.Message.When.Program.Eval(v); err != nil || ok != true {
		t.Errorf("when: %v %v", ok, err)
	}
	v.Steps = map[string]expression.StepResult{"review": {Text: "two migrations"}, "gate": {Approved: true, By: "carol"}, "deploy": {Outcome: "success"}}
	v.Secrets = map[string]string{"CI_TOKEN": "t0k"}
	for _, c := range []struct {
		tpl  *expression.Template
		want string
	}{
		{d.Steps[2].Approval.Message.Template, "Deploy api? The reviewer says:\ntwo migrations"},
		{d.Steps[3].HTTP.Headers["Authorization"].Template, "Bearer t0k"},
		{d.Steps[3].HTTP.Body.Template, "{\n  \"approved_by\": \"carol\",\n  \"service\": \"api\"\n}"},
		{d.Steps[4].Post.Text.Template, "🚀 Deploying api, approved by carol"},
	} {
		if got, err := c.tpl.Render(v); err != nil || got != c.want {
			t.Errorf("deploy: %q %v, want %q", got, err, c.want)
		}
	}

	d = example(t, "ci-webhook.yaml")
	v = expression.Values{Webhook: expression.Webhook{Event: "workflow_run", Body: map[string]any{"action": "completed", "workflow_run": map[string]any{
		"conclusion": "failure", "name": "test", "head_branch": "main", "html_url": "https://github.com/o/r/actions/runs/1"}}}}
	if ok, err := d.Steps[0].If.Program.Eval(v); err != nil || ok != true {
		t.Errorf("ci if: %v %v", ok, err)
	}
	got, err = d.Steps[0].Post.Text.Template.Render(v)
	if want := "❌ test on main: failure\nhttps://github.com/o/r/actions/runs/1"; err != nil || got != want {
		t.Errorf("ci text %q %v", got, err)
	}
}
