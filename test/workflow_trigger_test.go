package test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

const rocketWorkflow = `name: rocket
channel: ops
on:
  reaction:
    emoji: "🚀"
steps:
  - id: say
    post: {text: "${{ trigger.author.name }} launched: ${{ trigger.target.text }}", in: thread}
`

const echoWorkflow = `name: echo
channel: ops
on:
  message:
    when: 'trigger.text startsWith "!echo "'
steps:
  - id: ack
    react: "👀"
  - id: say
    post: '!echo ${{ trimPrefix(trigger.text, "!echo ") }} (from ${{ trigger.author.name }})'
`

// A message trigger with when: through the real binaries: a message that
// does not match starts nothing, nor does a reply (threads: top); one that
// matches gets one run whose card is a reply in its thread, a reaction, and
// a post. The post matches the workflow's own trigger and starts nothing:
// one run per person's message. Also measures trigger stored -> card
// stored over loopback. A reaction trigger with its emoji runs on the row.
func TestWorkflowMessageTrigger(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "echo", echoWorkflow)
	e.apply(t, "rocket", rocketWorkflow)
	e.serve(t)

	e.post(t, "hello, no command here")
	hi := e.post(t, "!echo hi")
	e.post(t, "!echo in a thread", nostr.Tag{"e", hi.ID, "", "root"})
	run := e.messageRun("echo", hi)
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("run: %+v", rec)
	}
	cards := e.query(t, nostr.Filter{Kinds: []int{kinds.Message}, Tags: nostr.TagMap{"q": {run}}})
	if len(cards) != 1 || kinds.ThreadRoot(&cards[0]) != hi.ID || !strings.HasPrefix(cards[0].Content, "▶ echo · run "+run[:8]+" · started by alice (message)") {
		t.Fatalf("card: %+v", cards)
	}
	reacts := e.query(t, nostr.Filter{Kinds: []int{kinds.Reaction}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{"e": {hi.ID}}})
	if len(reacts) != 1 || reacts[0].Content != "👀" {
		t.Fatalf("reactions: %+v", reacts)
	}
	if says := e.messagesWith(t, "!echo hi (from alice)"); len(says) != 1 || says[0].PubKey != e.runnerHex {
		t.Fatalf("posts: %+v", says)
	}

	// the runner handles events in order: once a later message's run is
	// over, its own post was looked at, and started nothing
	two := e.post(t, "!echo two")
	e.waitFinal(t, e.messageRun("echo", two), 20*time.Second)
	if n := len(e.claims(t, "echo")); n != 2 {
		t.Fatalf("%d claims, want 2 (one per person's message)", n)
	}

	// a reaction trigger: 🚀 starts a run on the row, 👍 nothing
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	target := e.post(t, "ship it")
	if _, err := e.alice.Publish(ctx, client.Reaction(target, "👍")); err != nil {
		t.Fatal(err)
	}
	rx, err := e.alice.Publish(ctx, client.Reaction(target, "🚀"))
	if err != nil {
		t.Fatal(err)
	}
	rrun := client.RunClaim(e.runnerHex, "ops", e.address("rocket"), client.TriggerReaction, rx.ID, rx.CreatedAt, 1).ID
	e.waitFinal(t, rrun, 20*time.Second)
	said := e.messagesWith(t, "alice launched: ship it")
	if len(said) != 1 || kinds.ThreadRoot(&said[0]) != target.ID {
		t.Fatalf("reaction run's post: %+v", said)
	}
	if n := len(e.claims(t, "rocket")); n != 1 {
		t.Fatalf("%d reaction claims, want 1", n)
	}

	// trigger stored -> card stored, over loopback
	var lat []time.Duration
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		msg, err := e.alice.Sign(client.Message("ops", "!echo lat "+string(rune('a'+i))))
		if err != nil {
			t.Fatal(err)
		}
		sub, err := e.alice.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.Message}, Tags: nostr.TagMap{"q": {e.messageRun("echo", msg)}}})
		if err != nil {
			t.Fatal(err)
		}
		<-sub.EOSE()
		if _, err := e.alice.Publish(ctx, msg); err != nil {
			t.Fatal(err)
		}
		stored := time.Now()
		select {
		case <-sub.Events():
			lat = append(lat, time.Since(stored))
		case <-ctx.Done():
			t.Fatalf("no card for message %d", i)
		}
		sub.Close()
		cancel()
		// one run at a time: the workflow queues at most 10 runs
		// (runner.MaxQueued), and a card is stored when its run is claimed
		e.waitFinal(t, e.messageRun("echo", msg), 20*time.Second)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("trigger stored -> card stored over loopback: p50 %v, p99 %v (n=%d)", lat[len(lat)/2], lat[len(lat)*99/100], len(lat))
}
