package test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow/runner"
	"github.com/nbd-wtf/go-nostr"
)

const loopWorkflow = `name: loop
channel: ops
on:
  message:
    when: 'trigger.text startsWith "!loop"'
    from: anyone
steps:
  - id: again
    post: "!loop again"
`

const slowWorkflow = `name: slow
channel: ops
on: {manual: {}}
steps:
  - id: nap
    wait: 10m
`

// listed is the status and reason hive workflow list --json gives name.
func (e *wfEnv) listed(t *testing.T, name string) string {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(e.c.ok("workflow", "list", "--json", "--profile", "bob")), "\n") {
		var it struct{ Name, Status, Reason string }
		if json.Unmarshal([]byte(line), &it) == nil && it.Name == name {
			return it.Status + ": " + it.Reason
		}
	}
	return "not listed"
}

// Loops, budgets and controls through the real binaries: a trigger at 3
// hops is claimed and skipped with the reason on it; the 31st run in an
// hour pauses the workflow (its status, one notice, list says so) until
// enable; disable stops triggers; cancel is refused to who may not and
// ends a waiting run for who may; delete stops the runner starting runs.
func TestWorkflowLoopsBudgetsControls(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "loop", loopWorkflow)
	e.apply(t, "slow", slowWorkflow)
	rp := e.serve(t)

	deep := e.post(t, "!loop deep", nostr.Tag{"hops", "3"})
	rec := e.waitFinal(t, e.messageRun("loop", deep), 20*time.Second)
	if rec.Status != kinds.RunSkipped || rec.Card != deep.ID || rec.Reason != "the trigger is 3 hops from a person (the limit is 3): a loop of automated posts stops here" {
		t.Fatalf("hops 3: %+v", rec)
	}

	var last nostr.Event
	for i := range runner.BudgetRuns {
		last = e.post(t, fmt.Sprintf("!loop %d", i))
		if i%runner.MaxQueued == runner.MaxQueued-1 { // at most 10 wait in a queue: let these end
			e.waitFinal(t, e.messageRun("loop", last), 60*time.Second)
		}
	}
	e.waitFinal(t, e.messageRun("loop", last), 60*time.Second)
	e.post(t, "!loop over budget")
	rp.waitLog(t, "workflow paused", 20*time.Second)
	if got := e.listed(t, "loop"); got != "paused: 30 runs in the last hour (the budget is 30); hive workflow enable loop resumes it" {
		t.Fatalf("list: %s", got)
	}
	if n := len(e.messagesWith(t, "⏸ workflow loop paused: 30 runs in the last hour")); n != 1 {
		t.Fatalf("%d pause notices", n)
	}
	if n := len(e.claims(t, "loop")); n != runner.BudgetRuns+1 {
		t.Fatalf("%d claims, want %d (the budget and the skipped one)", n, runner.BudgetRuns+1)
	}
	var enabled struct {
		CreatedAt int64 `json:"created_at"`
	}
	json.Unmarshal([]byte(e.c.ok("workflow", "enable", "loop", "--profile", "alice", "--json")), &enabled)
	if got := e.listed(t, "loop"); got != "active: " {
		t.Fatalf("after enable: %s", got)
	}
	after := e.post(t, "!loop after enable")
	// a version dated in the future (applied and enabled in one second)
	// made the runner pass over this message, older than the version
	if enabled.CreatedAt == 0 || enabled.CreatedAt > int64(after.CreatedAt) {
		t.Fatalf("enable's version is dated %d, after the message sent after it (%d)", enabled.CreatedAt, after.CreatedAt)
	}
	e.waitFinal(t, e.messageRun("loop", after), 20*time.Second)

	// disable: no run; only the author may
	if _, stderr, code := e.c.run("workflow", "disable", "loop", "--profile", "bob"); code != 3 || !strings.Contains(stderr, "only alice, who applied loop, can disable it") {
		t.Fatalf("bob's disable: exit %d %s", code, stderr)
	}
	e.c.ok("workflow", "disable", "loop", "--profile", "alice")
	rp.waitLog(t, "enabled=false", 10*time.Second)
	if got := e.listed(t, "loop"); got != "disabled: hive workflow enable loop resumes it" {
		t.Fatalf("after disable: %s", got)
	}
	off := e.post(t, "!loop while disabled")

	// cancel: alice's run, refused to bob, done by alice
	run := strings.TrimSpace(strings.SplitN(e.c.ok("workflow", "run", "slow", "--profile", "alice"), "\n", 2)[0])
	e.waitRecord(t, run, 20*time.Second, func(r client.RunRecord) bool { return r.Status == kinds.RunWaiting })
	// the runner handles events in order: the message before the request was looked at
	if evs := e.query(t, nostr.Filter{IDs: []string{e.messageRun("loop", off)}}); len(evs) != 0 {
		t.Fatal("a disabled workflow claimed a run")
	}
	if _, stderr, code := e.c.run("workflow", "cancel", run, "--profile", "bob"); code != 3 ||
		!strings.Contains(stderr, "only the workflow's author, the channel's owners and admins, or the one who started run "+run[:8]+" may cancel it") {
		t.Fatalf("bob's cancel: exit %d %s", code, stderr)
	}
	if out := e.c.ok("workflow", "cancel", run, "--profile", "alice"); out != "run "+run[:8]+" cancelled: cancelled by alice\n" {
		t.Fatalf("cancel: %q", out)
	}
	if _, stderr, code := e.c.run("workflow", "cancel", run, "--profile", "alice"); code != 5 || !strings.Contains(stderr, "has ended already (cancelled)") {
		t.Fatalf("second cancel: exit %d %s", code, stderr)
	}

	// delete: the runner forgets it
	e.c.ok("workflow", "delete", "slow", "--profile", "alice")
	rp.waitLog(t, "workflow deleted", 10*time.Second)
	if got := e.listed(t, "slow"); got != "not listed" {
		t.Fatalf("after delete: %s", got)
	}
}
