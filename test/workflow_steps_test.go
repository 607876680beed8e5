package test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

const stepsWorkflow = `name: steps
channel: ops
on: {manual: {}}
steps:
  - id: topic
    set_topic: "deploying ${{ run.short }}"
    continue_on_error: true
  - id: hello
    dm: {to: "@bob", text: "psst from ${{ run.short }}"}
  - id: nobody
    dm: {to: "@nobody", text: "never sent"}
  - id: after
    post: "never posted"
`

// Steps that fail, through the real binaries: set_topic by a runner that
// is no channel admin fails with the hub's reason and the run goes on
// (continue_on_error); dm reaches bob in their DM; a dm to a name nobody
// has fails the run there: a failed record, a note in the run's thread
// that mentions who started it, no later step, run --wait exit 5; hive
// workflow logs prints the records oldest first; hive who shows the
// runner connected.
func TestWorkflowStepsFail(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "steps", stepsWorkflow)
	e.serve(t)

	out, stderr, code := e.c.run("workflow", "run", "steps", "--wait", "--profile", "bob")
	run := strings.SplitN(out, "\n", 2)[0]
	if code != 5 || !strings.Contains(stderr, "run "+run[:8]+` failed: at nobody: no one named "@nobody"`) {
		t.Fatalf("run --wait: exit %d\n%s%s", code, out, stderr)
	}
	recs := e.records(t, run)
	if got, want := statuses(recs), "started step/topic:running step/topic:failed step/hello:running step/hello:success step/nobody:failed failed"; got != want {
		t.Fatalf("records:\n got %s\nwant %s", got, want)
	}
	if r := recs[2]; !strings.HasPrefix(r.Reason, "the hub refused: restricted: ") {
		t.Fatalf("set_topic's failure: %q", r.Reason)
	}
	bobHex, _ := identity.ParsePublicKey(e.tm.npub["bob"])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dms, err := e.as(t, "bob").Query(ctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{"h": {client.DMChannelID(e.runnerHex, bobHex)}}})
	if err != nil || len(dms) != 1 || dms[0].Content != "psst from "+run[:8] {
		t.Fatalf("the DM: %+v", dms)
	}
	// the note follows the failed record
	nsub, err := e.alice.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{"e": {recs[0].Card}}})
	if err != nil {
		t.Fatal(err)
	}
	var notes []nostr.Event
	for len(notes) == 0 {
		select {
		case ev := <-nsub.Events():
			if strings.HasPrefix(ev.Content, "✗ steps failed at nobody: ") {
				notes = append(notes, ev)
			}
		case <-ctx.Done():
			t.Fatal("no failure note")
		}
	}
	nsub.Close()
	if len(e.messagesWith(t, "✗ steps failed at nobody: ")) != 1 || !strings.HasSuffix(notes[0].Content, "(started by @bob)") || !notes[0].Tags.ContainsAny("p", []string{bobHex}) {
		t.Fatalf("the failure note: %+v", notes)
	}
	if n := len(e.messagesWith(t, "never posted")); n != 0 {
		t.Fatalf("a step after the failure ran (%d posts)", n)
	}

	// the runner shows in hive who like an agent, with its state
	var seen bool
	for _, line := range strings.Split(strings.TrimSpace(e.c.ok("who", "ops", "--json", "--listen", "100ms", "--profile", "bob")), "\n") {
		var m struct {
			Pubkey, Name string
			Status       *struct {
				State     string
				Connected bool
			}
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Pubkey == e.runnerHex {
			seen = m.Status != nil && m.Status.Connected && (m.Status.State == "idle" || m.Status.State == "working")
		}
	}
	if !seen {
		t.Fatalf("hive who does not show the runner connected:\n%s", e.c.ok("who", "ops", "--profile", "bob"))
	}

	lines := strings.Split(strings.TrimSpace(e.c.ok("workflow", "logs", run, "--json", "--profile", "bob")), "\n")
	var last struct{ Run, Workflow, Status, Step, By, Reason string }
	if len(lines) != len(recs) || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil || last.Run != run ||
		last.Workflow != e.address("steps") || last.Status != kinds.RunFailed || !strings.HasPrefix(last.Reason, "at nobody: ") {
		t.Fatalf("logs --json:\n%s", strings.Join(lines, "\n"))
	}
	if text := e.c.ok("workflow", "logs", "steps", "--profile", "bob"); !strings.Contains(text, " "+run[:8]+" step topic 1/4 failed · the hub refused: restricted: ") {
		t.Fatalf("logs NAME:\n%s", text)
	}
}
