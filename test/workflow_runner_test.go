package test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

const manualDeploy = `name: deploy
channel: ops
on:
  manual:
    inputs:
      version: {type: string, required: true}
      target: {type: choice, options: [staging, prod], default: staging}
steps:
  - id: hello
    post: "Deploying ${{ inputs.version }} to ${{ inputs.target }}"
  - id: pause
    wait: 1s
  - id: note
    post: {text: "done: ${{ steps.hello.id }}", in: thread}
`

// A manual run through the real binaries: hive workflow run checks the
// inputs before anything is sent (exit 1 naming the input), prints the run
// id first, and with --wait exits 0 once the runner's finished record is
// in; the run's card, records and posts are events of the channel.
func TestWorkflowManualRunFinishes(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "deploy", manualDeploy)
	rp := e.serve(t)

	// one runner per key and state_dir
	_, stderr, code := e.c.run("workflow", "serve", "--config", e.config)
	if want := fmt.Sprintf("another runner (pid %d) holds %s: one runner per key and state_dir; stop it first", rp.cmd.Process.Pid, filepath.Join(e.dir, "state")); code != 5 || !strings.Contains(stderr, want) {
		t.Fatalf("a second runner: exit %d %s", code, stderr)
	}

	_, stderr, code = e.c.run("workflow", "run", "deploy", "--input", "target=prod", "--profile", "bob")
	if code != 1 || !strings.Contains(stderr, "input version is required (a string)") {
		t.Fatalf("missing input: exit %d %s", code, stderr)
	}
	_, stderr, code = e.c.run("workflow", "run", "deploy", "--input", "version=1", "--input", "target=moon", "--profile", "bob")
	if code != 1 || !strings.Contains(stderr, `input target is one of staging, prod, not "moon"`) {
		t.Fatalf("bad choice: exit %d %s", code, stderr)
	}
	if reqs := e.query(t, nostr.Filter{Kinds: []int{kinds.RunRequest}}); len(reqs) != 0 {
		t.Fatalf("a refused run sent %d requests", len(reqs))
	}

	out := e.c.ok("workflow", "run", "deploy", "--input", "version=1.2", "--wait", "--json", "--profile", "bob")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first struct{ Run, Workflow string }
	var last struct{ Run, Status string }
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &last) != nil ||
		len(first.Run) != 64 || first.Workflow != "deploy" || last.Run != first.Run || last.Status != kinds.RunFinished {
		t.Fatalf("run --wait:\n%s", out)
	}
	recs := e.records(t, first.Run)
	if got, want := statuses(recs), "started step/hello:running step/hello:success waiting/pause:running step/pause:success step/note:running step/note:success finished"; got != want {
		t.Fatalf("records:\n got %s\nwant %s", got, want)
	}
	posts := e.messagesWith(t, "Deploying 1.2 to staging")
	if len(posts) != 1 || posts[0].PubKey != e.runnerHex || tagOf(posts[0], "hops") != "1" {
		t.Fatalf("posts: %+v", posts)
	}
	cards := e.query(t, nostr.Filter{Kinds: []int{kinds.Message}, Tags: nostr.TagMap{"q": {first.Run}}})
	if len(cards) != 1 || !strings.HasPrefix(cards[0].Content, "▶ deploy · run "+first.Run[:8]+" · started by bob (manual: version=1.2 target=staging)") ||
		recs[0].Card != cards[0].ID {
		t.Fatalf("card: %+v (records on %s)", cards, recs[0].Card)
	}
	if notes := e.messagesWith(t, "done: "+posts[0].ID); len(notes) != 1 || kinds.ThreadRoot(&notes[0]) != cards[0].ID {
		t.Fatalf("thread note: %+v", notes)
	}
	// the card's badge, through the chat model, in hive read
	var row struct {
		ID  string
		Run struct{ Run, Status string }
	}
	for _, line := range strings.Split(strings.TrimSpace(e.c.ok("read", "ops", "--json", "--profile", "bob")), "\n") {
		if json.Unmarshal([]byte(line), &row) == nil && row.ID == cards[0].ID {
			break
		}
	}
	if row.ID != cards[0].ID || row.Run.Run != first.Run || row.Run.Status != kinds.RunFinished {
		t.Fatalf("hive read --json: the card's run badge: %+v", row)
	}
	if out := e.c.ok("read", "ops", "--profile", "bob"); !strings.Contains(out, "▶ deploy · run "+first.Run[:8]+" · started by bob (manual: version=1.2 target=staging) (1 replies, run: ✓ finished ") {
		t.Fatalf("hive read: no badge on the card:\n%s", out)
	}
}

func tagOf(ev nostr.Event, name string) string {
	if t := ev.Tags.Find(name); len(t) >= 2 {
		return t[1]
	}
	return ""
}
