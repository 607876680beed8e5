package test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow/runner"
)

const queuedWorkflow = `name: queued
channel: ops
on: {manual: {}}
concurrency: queue
steps:
  - id: nap
    wait: 10m
`

// concurrency: queue holds at most MaxQueued waiting runs: with one run
// in its wait and ten behind it, the next trigger is claimed and recorded
// skipped with the reason; the ten still wait.
func TestWorkflowQueueLimit(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "queued", queuedWorkflow)
	e.serve(t)
	bob := e.as(t, "bob")
	w := client.Workflow{Name: "queued", Channel: "ops", Author: e.aliceHex, Runner: e.runnerHex}
	var runs []string
	for i := 0; i < runner.MaxQueued+2; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, err := bob.Publish(ctx, client.RunRequest("ops", w.Address(), nil))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, client.RunIDOf(w, req))
		if i == 0 { // the first is in its wait before the others come
			e.waitRecord(t, runs[0], 20*time.Second, func(r client.RunRecord) bool { return r.Status == kinds.RunWaiting })
		}
	}
	last := e.waitFinal(t, runs[len(runs)-1], 20*time.Second)
	if last.Status != kinds.RunSkipped || last.Reason != "the queue is full: 10 runs wait already (concurrency: queue holds at most 10 waiting)" {
		t.Fatalf("the 12th: %+v", last)
	}
	for _, id := range runs[1 : len(runs)-1] {
		for _, r := range e.records(t, id) {
			if kinds.RunFinal(r.Status) {
				t.Fatalf("run %s ended: %+v", id[:8], r)
			}
		}
	}
}

// hive workflow cancel from a paired device: bob's phone cancels the run
// bob started, and bob cancels the one his phone started (a device counts
// as its owner, in the CLI's check and the runner's).
func TestWorkflowCancelFromDevice(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "slow", slowWorkflow)
	e.serve(t)
	bob, err := identity.LoadKeyFile(e.tm.keys["bob"], nil)
	if err != nil {
		t.Fatal(err)
	}
	devKey := filepath.Join(e.dir, "phone.key")
	var k struct{ Npub string }
	json.Unmarshal([]byte(e.c.ok("key", "new", "--out", devKey, "--json")), &k)
	devHex, _ := identity.ParsePublicKey(k.Npub)
	tag, err := identity.AttestDevice(bob.SecretHex, devHex, identity.Conditions{}.WithNotBefore(time.Now().Unix()-60).WithExpiry(time.Now().Unix()+3600))
	if err != nil {
		t.Fatal(err)
	}
	tagJSON, _ := json.Marshal(tag)
	phone := []string{"--key", devKey, "--auth-tag", string(tagJSON), "--hub", e.p.URL}
	dev, err := identity.LoadKeyFile(devKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dc, err := client.Connect(ctx, client.Options{URLs: []string{e.p.URL}, Keys: dev, AuthTag: tag})
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	if _, err := dc.Publish(ctx, client.DeviceProfile("bob's phone", tag)); err != nil {
		t.Fatal(err)
	}

	byBob := e.runID(t, "slow")
	e.waitRecord(t, byBob, 20*time.Second, func(r client.RunRecord) bool { return r.Status == kinds.RunWaiting })
	if out := e.c.ok(append([]string{"workflow", "cancel", byBob}, phone...)...); out != "run "+byBob[:8]+" cancelled: cancelled by bob\n" {
		t.Fatalf("the phone's cancel: %q", out)
	}
	out := e.c.ok(append([]string{"workflow", "run", "slow"}, phone...)...)
	byPhone := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	e.waitRecord(t, byPhone, 20*time.Second, func(r client.RunRecord) bool { return r.Status == kinds.RunWaiting })
	if out := e.c.ok("workflow", "cancel", byPhone, "--profile", "bob"); out != "run "+byPhone[:8]+" cancelled: cancelled by bob\n" {
		t.Fatalf("bob's cancel of the phone's run: %q", out)
	}
}
