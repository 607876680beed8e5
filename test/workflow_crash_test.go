package test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow/runner"
)

const crashWorkflow = `name: crashy
channel: ops
on:
  manual: {}
  message:
    when: 'trigger.text == "!crash"'
steps:
  - id: first
    post: "first post of ${{ run.short }}"
  - id: pause
    wait: 3s
  - id: second
    post: "second post of ${{ run.short }}"
`

// Exactly once across crashes, through the real binaries: the runner dies
// (exit 137, no clean-up) right after recording a step it is about to
// publish, is killed -9 in a wait, dies right after a post's OK before its
// outcome is recorded; its state_dir is deleted; after each restart the run
// goes on from its records, and every step posts once.
// A message trigger seen again after the restart (the catch-up reads the
// last hour again) claims the same run and starts nothing.
func TestWorkflowRunnerCrashes(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "crashy", crashWorkflow)

	rp := e.serveEnv(t, []string{runner.CrashEnv + "=before-publish:first"})
	run := e.runID(t, "crashy")
	rp.cmd.Wait()
	if code := rp.cmd.ProcessState.ExitCode(); code != 137 {
		t.Fatalf("the runner did not stop at the crash point: exit %d\n%s", code, rp.logs())
	}
	if got := statuses(e.records(t, run)); got != "started step/first:running" {
		t.Fatalf("records at the crash: %s", got)
	}
	if n := len(e.messagesWith(t, "first post of "+run[:8])); n != 0 {
		t.Fatalf("%d first posts before the crash point", n)
	}

	// restart: the recorded event is published; then kill -9 in the wait
	rp = e.serve(t)
	e.waitRecord(t, run, 20*time.Second, func(r client.RunRecord) bool { return r.Status == kinds.RunWaiting })
	rp.kill9()
	msg := e.post(t, "!crash")
	if err := os.RemoveAll(filepath.Join(e.dir, "state")); err != nil {
		t.Fatal(err)
	}

	// restart with no state: the wait resumes, the message's run runs once
	// a crash right after the second post's OK, before its outcome
	rp = e.serveEnv(t, []string{runner.CrashEnv + "=after-publish:second"})
	rp.cmd.Wait()
	if code := rp.cmd.ProcessState.ExitCode(); code != 137 {
		t.Fatalf("the runner did not stop after the second post: exit %d\n%s", code, rp.logs())
	}
	if n := len(e.messagesWith(t, "second post of "+run[:8])); n != 1 {
		t.Fatalf("%d second posts at the crash", n)
	}
	os.RemoveAll(filepath.Join(e.dir, "state"))
	rp = e.serve(t)
	if rec := e.waitFinal(t, run, 30*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("run: %+v", rec)
	}
	mrun := e.messageRun("crashy", msg)
	e.waitFinal(t, mrun, 30*time.Second)
	rp.kill9()
	os.RemoveAll(filepath.Join(e.dir, "state"))
	e.serve(t)
	again := e.post(t, "!crash")
	e.waitFinal(t, e.messageRun("crashy", again), 30*time.Second)

	for _, id := range []string{run, mrun} {
		for _, text := range []string{"first post of ", "second post of "} {
			if n := len(e.messagesWith(t, text+id[:8])); n != 1 {
				t.Errorf("run %s: %d %q", id[:8], n, text)
			}
		}
	}
	if got, want := statuses(e.records(t, run)), "started step/first:running step/first:success waiting/pause:running step/pause:success step/second:running step/second:success finished"; got != want {
		t.Fatalf("records:\n got %s\nwant %s", got, want)
	}
	if n := len(e.claims(t, "crashy")); n != 3 {
		t.Fatalf("%d claims, want 3 (the manual run and two messages)", n)
	}
	cards := e.messagesWith(t, "▶ crashy")
	if len(cards) != 3 {
		t.Fatalf("%d cards, want 3", len(cards))
	}
}

// A hub killed -9 in the middle of a run, through the real binaries: the
// runner reconnects by itself once the hub is back on its data, the run
// goes on from where it was, and every step posts once.
func TestWorkflowHubCrashMidRun(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "crashy", crashWorkflow)
	rp := e.serve(t)
	run := e.runID(t, "crashy")
	e.waitRecord(t, run, 20*time.Second, func(r client.RunRecord) bool { return r.Status == kinds.RunWaiting })
	e.p.kill9()
	e.p = startProc(t, filepath.Join(e.dir, "hub"), e.p.addr)
	if rec := e.waitFinal(t, run, 60*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("run: %+v\n%s", rec, rp.logs())
	}
	for _, text := range []string{"first post of ", "second post of "} {
		if n := len(e.messagesWith(t, text+run[:8])); n != 1 {
			t.Errorf("%d %q", n, text)
		}
	}
	if got, want := statuses(e.records(t, run)), "started step/first:running step/first:success waiting/pause:running step/pause:success step/second:running step/second:success finished"; got != want {
		t.Fatalf("records:\n got %s\nwant %s", got, want)
	}
}
