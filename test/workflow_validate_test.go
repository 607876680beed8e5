package test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hiveOutErr runs the binary: stdout, stderr and the exit code.
func hiveOutErr(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// workflowFile writes a definition file named name.yaml and returns its path.
func workflowFile(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const wfHead = "name: w\nchannel: ops\non:\n  manual: {}\nsteps:\n" // the steps start on line 6

// Every validation error, through the real binary: exit 1, the problem as
// FILE:LINE:COL: what, and the fix (the whole sentence pinned), and the
// same position in --json's errors.
func TestWorkflowValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line, col int
		msg       string
	}{
		// invalid YAML: the construct left open
		{"unclosed quote", "name: w\nchannel: ops\non: {manual: {}}\nsteps:\n  - id: a\n    post: \"hello\n  - id: b\n    post: x\n",
			6, 11, `invalid YAML: this double-quoted string is never closed: end it with "`},
		{"unclosed flow list", "name: w\nchannel: ops\non: {manual: {}}\nsteps: [a, b\n",
			4, 8, "invalid YAML: this [ is never closed: close it with ]"},
		{"flow mapping closed by the other bracket", "name: w\non: {manual: {run_by: members]\n",
			2, 14, "invalid YAML: this { is closed by ] at 2:30: close it with }"},
		{"tab in the indentation", "name: w\nsteps:\n\t- id: a\n",
			3, 1, "invalid YAML: a tab in the indentation: YAML indents with spaces only"},
		{"a second colon in a value", "name: w\nchannel: ops\non: {manual: {}}\nsteps:\n  - id: a\n    post: Deploy: done\n",
			6, 17, `invalid YAML: a second ": " in the value that starts at column 11: quote the value ("…") if the colon is text`},
		{"unknown escape", wfHead + "  - id: a\n    post: \"C:\\temp\\q\"\n",
			7, 19, `invalid YAML: unknown escape \q in a double-quoted string: write \\ for a backslash, or use single quotes`},
		{"list item out of line", wfHead + "  - id: a\n   post: x\n",
			6, 3, `invalid YAML: did not find expected '-' indicator: the list that starts here goes on with a line that is not an item: indent every item's keys alike, under its "- "`},
		// unknown keys, anywhere
		{"unknown top-level key", "name: w\nchanel: ops\n",
			2, 1, `unknown key "chanel" in a workflow: the keys here are name, channel, description, on, concurrency, steps`},
		{"unknown trigger", "name: w\nchannel: ops\non:\n  mesage: {}\nsteps:\n  - id: a\n    post: x\n",
			4, 3, `unknown key "mesage" in on: the keys here are message, reaction, schedule, webhook, manual`},
		{"unknown key in a trigger", "name: w\nchannel: ops\non:\n  message: {when: 'true', form: anyone}\nsteps:\n  - id: a\n    post: x\n",
			4, 27, `unknown key "form" in the message trigger: the keys here are when, from, threads`},
		{"unknown key in a step", wfHead + "  - id: a\n    post: x\n    colour: red\n",
			8, 5, `unknown key "colour" in a step: a step has id, name, if, timeout, continue_on_error and exactly one action: post, dm, react, ask_agent, approval, wait, set_topic, http`},
		{"unknown key in an action", wfHead + "  - id: a\n    approval: {approvers: [owner], mesage: x}\n",
			7, 36, `unknown key "mesage" in approval: the keys here are approvers, message, timeout, on_timeout, min, allow_self`},
		{"a key twice", "name: w\nname: v\n",
			2, 1, `key "name" is given twice in a workflow (first at 1:1): keep one`},
		// actions
		{"unknown action", wfHead + "  - id: a\n    send_message: hi\n",
			7, 5, `unknown action "send_message": the actions are post, dm, react, ask_agent, approval, wait, set_topic, http (a step has exactly one; its other keys are id, name, if, timeout, continue_on_error)`},
		{"two actions", wfHead + "  - id: a\n    post: hi\n    dm: {to: \"@bob\", text: hi}\n",
			8, 5, "step a has two actions, post and dm: a step does exactly one; split it into two steps"},
		{"no action", wfHead + "  - id: a\n    name: nothing\n",
			6, 5, "step a has no action: give exactly one of post, dm, react, ask_agent, approval, wait, set_topic, http"},
		// expressions: file column = the expression's offset added
		{"unknown field in a template", wfHead + "  - id: a\n    post: \"hi ${{ trigger.txt }}\"\n",
			7, 27, `post: at column 9 of the expression: trigger has no field "txt": its fields are type, id, text, author, channel, thread, mentions, emoji, target, at`},
		{"a later step in if", wfHead + "  - id: a\n    if: steps.b.text == \"x\"\n    post: x\n  - id: b\n    post: y\n",
			7, 15, `if: at column 7 of the expression: no step "b" before this one: a step can use only the steps before it, and this is the first`},
		{"if that is not a condition", wfHead + "  - id: a\n    if: trigger.text\n    post: x\n",
			7, 9, `if: at column 1 of the expression: this must be true or false, and the expression gives string: compare it, e.g. trigger.text == "…"`},
		{"syntax error in when", "name: w\nchannel: ops\non:\n  message:\n    when: 'trigger.text startsWith'\nsteps:\n  - id: a\n    post: x\n",
			5, 34, "when: at column 23 of the expression: unexpected token EOF"},
		{"inputs in a trigger's when", "name: w\nchannel: ops\non:\n  message:\n    when: inputs.x == 1\nsteps:\n  - id: a\n    post: x\n",
			5, 11, "when: at column 1 of the expression: inputs is not known when a trigger is matched: a trigger's when: may use trigger, now"},
		{"unknown input", wfHead + "  - id: a\n    post: \"v ${{ inputs.version }}\"\n",
			7, 25, `post: at column 8 of the expression: no input "version": declare it under on: manual: inputs:`},
		{"a mismatched type in a block scalar", wfHead + "  - id: a\n    post: |\n      line one\n      ${{ trigger.text + 1 }}\n",
			9, 24, "post: at column 14 of the expression: invalid operation: + (mismatched types string and int)"},
		{"an unclosed ${{", wfHead + "  - id: a\n    post: \"hi ${{ trigger.text\"\n",
			7, 15, "post: this ${{ is not closed: end the expression with }}"},
		{"secrets outside http", wfHead + "  - id: a\n    post: \"token ${{ secrets.TOKEN }}\"\n",
			7, 22, "post: at column 1 of the expression: secrets are usable only inside an http step (its url, headers and body): move the call into an http step"},
		{"secrets in an http step's if", wfHead + "  - id: a\n    if: secrets.X == \"y\"\n    http: {url: \"https://ci.example/x\"}\n",
			7, 9, "if: at column 1 of the expression: secrets are usable only inside an http step (its url, headers and body): move the call into an http step"},
		// schedules
		{"cron with 6 fields", "name: w\nchannel: ops\non:\n  schedule:\n    - cron: \"0 30 9 * * *\"\nsteps:\n  - id: a\n    post: x\n",
			5, 14, "cron: a cron has 5 fields (minute hour day-of-month month day-of-week), this one has 6: seconds are not supported, schedules are at minute granularity"},
		{"cron out of range", "name: w\nchannel: ops\non:\n  schedule:\n    - cron: \"30 25 * * *\"\nsteps:\n  - id: a\n    post: x\n",
			5, 17, `cron: the hour field "25" is out of range: hours are 0-23`},
		{"unknown timezone", "name: w\nchannel: ops\non:\n  schedule:\n    - cron: \"30 9 * * 1-5\"\n      timezone: Europe/Berln\nsteps:\n  - id: a\n    post: x\n",
			6, 17, `unknown timezone "Europe/Berln": write an IANA name such as Europe/Berlin, America/New_York or UTC`},
		// durations: 1 s to 7 d
		{"wait too long", wfHead + "  - id: a\n    wait: 8d\n",
			7, 11, "wait 8d is out of bounds: it is 1s to 7d"},
		{"timeout too short", wfHead + "  - id: a\n    timeout: 0s\n    post: x\n",
			7, 14, "timeout 0s is out of bounds: it is 1s to 7d"},
		{"not a duration", wfHead + "  - id: a\n    approval: {approvers: [owner], timeout: 4 hours}\n",
			7, 45, `timeout "4 hours" is not a duration: write a number and a unit (s, m, h, d), e.g. 30s, 10m, 4h, 7d or 1h30m`},
		// approvers
		{"an agent as approver", wfHead + "  - id: review\n    ask_agent: {agent: reviewer, text: check}\n  - id: gate\n    approval: {approvers: [owner, \"@reviewer\"]}\n",
			9, 35, "approver @reviewer is an agent (step review asks it): agents never approve; name a person, or owner, channel-admins or channel-owners"},
		{"a bare name as approver", wfHead + "  - id: gate\n    approval: {approvers: [carol]}\n",
			7, 28, `approvers: "carol" is neither @name nor an npub: write @carol for a member's name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := workflowFile(t, "wf", tc.src)
			stdout, stderr, code := hiveOutErr(t, "workflow", "validate", path)
			want := path + ":" + strconv.Itoa(tc.line) + ":" + strconv.Itoa(tc.col) + ": " + tc.msg
			if code != 1 || !strings.Contains(stderr, want+"\n") || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and the line\n%s", code, stdout, stderr, want)
			}
			if !strings.Contains(stderr, "hive: "+path+" is not a valid workflow: ") {
				t.Errorf("no summary line:\n%s", stderr)
			}
			stdout, stderr, code = hiveOutErr(t, "workflow", "validate", path, "--json")
			var out struct {
				OK     *bool `json:"ok"`
				Errors []struct {
					Line, Col int
					Message   string
				}
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != 1 || out.OK == nil || *out.OK {
				t.Fatalf("--json: exit %d, stdout %q (%v)", code, stdout, err)
			}
			found := false
			for _, e := range out.Errors {
				found = found || e.Line == tc.line && e.Col == tc.col && e.Message == tc.msg
			}
			var errObj struct{ Error, Message string }
			if !found || json.Unmarshal([]byte(stderr), &errObj) != nil || errObj.Error != "bad_input" || !strings.Contains(errObj.Message, want) {
				t.Errorf("--json: errors %+v, stderr %s", out.Errors, stderr)
			}
		})
	}
}

// The examples validate as written, through the real binary.
func TestWorkflowExamplesValidate(t *testing.T) {
	for file, want := range map[string]string{
		"standup.yaml":    "ok: standup (1 trigger, 1 step)\n",
		"deploy.yaml":     "ok: deploy (1 trigger, 5 steps)\n",
		"ci-webhook.yaml": "ok: ci-notify (1 trigger, 1 step)\n",
		"hello.yaml":      "ok: hello (2 triggers, 1 step)\n",
	} {
		path := filepath.Join("..", "examples", "workflows", file)
		stdout, stderr, code := hiveOutErr(t, "workflow", "validate", path)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("%s: exit %d %q %q, want %q", file, code, stdout, stderr, want)
		}
		stdout, _, code = hiveOutErr(t, "workflow", "validate", path, "--json")
		var out struct {
			OK       bool
			Name     string
			Triggers int
			Steps    int
			Errors   []any
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != 0 || !out.OK || out.Errors == nil || len(out.Errors) != 0 || !strings.Contains(want, out.Name+" (") {
			t.Errorf("%s --json: exit %d %s", file, code, stdout)
		}
	}
	if _, stderr, code := hiveOutErr(t, "workflow", "validate", filepath.Join(t.TempDir(), "nope.yaml")); code != 4 || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing file: exit %d %s", code, stderr)
	}
}
