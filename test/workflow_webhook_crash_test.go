package test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow/runner"
)

// A webhook run survives its runner: killed right after its first post,
// restarted with its state_dir deleted, it finishes with the delivery's
// values read again from the log (webhook.body in the second post), each
// post once; a delivery the hub took while the runner was down runs once
// after the restart.
func TestWorkflowWebhookRunResumes(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "hooked", hookedWorkflow+`  - id: first
    post: 'first ${{ webhook.body.n }} of ${{ webhook.delivery }}'
  - id: second
    post: 'second ${{ webhook.body.n }} (${{ webhook.headers["x-note"] }}) of ${{ webhook.delivery }}'
`)
	h := e.makeHook(t, "hooked")
	rp := e.serveEnv(t, []string{runner.CrashEnv + "=after-publish:first"})
	body := []byte(`{"n":7}`)
	hd := standardHeaders(t, h.Secret, "m-crash", time.Now(), body)
	hd.Set("X-Note", "kept")
	first := postHook(t, h.URL, hd, body)
	if first.Code != 202 {
		t.Fatalf("delivery: %d %s", first.Code, first.Raw)
	}
	rp.cmd.Wait()
	if code := rp.cmd.ProcessState.ExitCode(); code != 137 {
		t.Fatalf("the runner did not stop after the first post: exit %d\n%s", code, rp.logs())
	}
	// while it is down, another delivery is taken
	body2 := []byte(`{"n":8}`)
	down := postHook(t, h.URL, standardHeaders(t, h.Secret, "m-down", time.Now(), body2), body2)
	if down.Code != 202 {
		t.Fatalf("delivery while down: %d %s", down.Code, down.Raw)
	}
	os.RemoveAll(filepath.Join(e.dir, "state"))
	e.serve(t)
	for _, run := range []string{first.Run, down.Run} {
		if rec := e.waitFinal(t, run, 30*time.Second); rec.Status != kinds.RunFinished {
			t.Fatalf("run %s ended %s: %s", run[:8], rec.Status, rec.Reason)
		}
	}
	for _, text := range []string{"first 7 of m-crash", "second 7 (kept) of m-crash", "first 8 of m-down", "second 8 () of m-down"} {
		if n := len(e.messagesWith(t, text)); n != 1 {
			t.Errorf("%q posted %d times, want once", text, n)
		}
	}
	if n := len(e.claims(t, "hooked")); n != 2 {
		t.Fatalf("%d claims, want 2", n)
	}
}
