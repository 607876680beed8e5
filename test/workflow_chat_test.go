package test

import (
	"strings"
	"testing"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

const deployWorkflow = `name: deploy
channel: ops
on:
  manual:
    inputs:
      version: {type: choice, options: ["1.0", "1.2"], required: true}
      dry: {type: boolean, default: false}
steps:
  - id: say
    post: "deploying ${{ inputs.version }} dry=${{ inputs.dry }}"
`

// /run in hive chat (tmux): a wrong input is said, naming the input and
// what it allows, and nothing is published; a good one starts the run,
// whose card shows in the channel with its badge.
func TestChatTUIRunWorkflow(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "deploy", deployWorkflow)
	e.serve(t)
	p := startChat(t, e.c.home, 160, 30, "ops", "--profile", "bob")
	p.waitText("#ops", "● connected")

	p.say("/run deploy version=9")
	p.waitText(`/run deploy: input version is one of 1.0, 1.2, not "9" (nothing was sent)`)
	p.say("/run deploy dry=maybe version=1.0")
	p.waitText(`/run deploy: input dry is a boolean: give dry=true or dry=false, not "maybe" (nothing was sent)`)
	p.say("/run nope")
	p.waitText(`/run nope: no workflow "nope" in the channels you are in (see ` + "`hive workflow list`)")
	if reqs := e.query(t, nostr.Filter{Kinds: []int{kinds.RunRequest}}); len(reqs) != 0 {
		t.Fatalf("a refused /run published %d requests", len(reqs))
	}

	p.say("/run deploy version=1.2 dry=true")
	s := p.waitText("requested in #ops: its card shows there", "▶ deploy · run ", "started by bob (manual: version=1.2 dry=true)", "✓ finished")
	t.Logf("the screen:\n%s", s)
	reqs := e.query(t, nostr.Filter{Kinds: []int{kinds.RunRequest}})
	if len(reqs) != 1 || reqs[0].Content != `{"inputs":{"dry":true,"version":"1.2"}}` {
		t.Fatalf("requests: %+v", reqs)
	}
	if !strings.Contains(s, "deploying 1.2 dry=true") {
		p.waitText("deploying 1.2 dry=true")
	}
}
