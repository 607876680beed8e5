package test

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

const hubWorkflow = "name: standup\nchannel: ops\non:\n  schedule:\n    - cron: \"30 9 * * 1-5\"\nsteps:\n  - id: prompt\n    post: Stand-up time\n"

// The hub takes a workflow definition (30460) only from an owner or admin
// of its channel, with a runner, a definition that validates, named as its
// d tag and living in its h channel; each refusal says why, and nothing
// refused is stored.
func TestWorkflowDefinitionRules(t *testing.T) {
	h := startClosedHub(t)
	admin := h.as(t, h.Admin)
	alice, bob, carol, runner := newKey(t), newKey(t), newKey(t), newKey(t)
	for _, k := range []key{alice, bob, carol, runner} {
		h.addMember(t, admin, k)
	}
	a := h.as(t, alice)
	createChannel(t, a, alice, "ops", "private")
	a.must(alice.sign(t, 9000, "", nostr.Tag{"h", "ops"}, nostr.Tag{"p", bob.pk}))
	a.must(alice.sign(t, 9000, "", nostr.Tag{"h", "ops"}, nostr.Tag{"p", carol.pk, "admin"}))
	a.must(alice.sign(t, 9000, "", nostr.Tag{"h", "ops"}, nostr.Tag{"p", runner.pk}))
	def := func(k key, content string, tags ...nostr.Tag) *nostr.Event {
		return k.sign(t, 30460, content, append([]nostr.Tag{{"d", "standup"}, {"h", "ops"}, {"p", runner.pk}}, tags...)...)
	}
	b := h.as(t, bob)
	for _, tc := range []struct {
		r      *raw
		ev     *nostr.Event
		reason string
	}{
		{b, def(bob, hubWorkflow), "restricted: only a channel owner or admin may publish a workflow in channel ops"},
		{a, alice.sign(t, 30460, hubWorkflow, nostr.Tag{"d", "standup"}, nostr.Tag{"h", "ops"}), `invalid: kind 30460 needs a "p" tag with a value`},
		{a, alice.sign(t, 30460, hubWorkflow, nostr.Tag{"d", "standup"}, nostr.Tag{"h", "ops"}, nostr.Tag{"p", "runner"}), "invalid: the p tag names the workflow's runner: a 64-character hex pubkey"},
		{a, def(alice, hubWorkflow+"    colour: red\n"), `invalid: the definition does not validate: 9:5: unknown key "colour" in a step: a step has id, name, if, timeout, continue_on_error and exactly one action: post, dm, react, ask_agent, approval, wait, set_topic, http; check it with ` + "`hive workflow validate FILE`"},
		{a, alice.sign(t, 30460, hubWorkflow, nostr.Tag{"d", "stand-up"}, nostr.Tag{"h", "ops"}, nostr.Tag{"p", runner.pk}), `invalid: the definition is named "standup" and its d tag is "stand-up": they must be the same`},
		{a, def(alice, "name: standup\nchannel: dev\non: {manual: {}}\nsteps: [{id: a, post: x}]\n"), `invalid: the definition's channel is "dev", and its h tag names channel ops (ops)`},
	} {
		if ok, msg := tc.r.publish(tc.ev); ok || msg != tc.reason {
			t.Errorf("got ok=%v %q\nwant %q", ok, msg, tc.reason)
		}
	}
	if evs, _ := a.req("defs", nostr.Filter{Kinds: []int{30460}}); len(evs) != 0 {
		t.Fatalf("refused definitions were stored: %d", len(evs))
	}
	// the owner and an admin may; every member of the channel reads them
	a.must(def(alice, hubWorkflow))
	c := h.as(t, carol)
	c.must(carol.sign(t, 30460, "name: ping\nchannel: ops\non: {manual: {}}\nsteps: [{id: a, post: pong}]\n", nostr.Tag{"d", "ping"}, nostr.Tag{"h", "ops"}, nostr.Tag{"p", runner.pk}))
	if evs, _ := b.req("defs", nostr.Filter{Kinds: []int{30460}, Tags: nostr.TagMap{"h": {"ops"}}}); len(evs) != 2 {
		t.Fatalf("bob reads %d definitions, want 2", len(evs))
	}
	// a hub member outside the private channel reads none
	stranger := newKey(t)
	h.addMember(t, admin, stranger)
	if evs, _ := h.as(t, stranger).req("defs", nostr.Filter{Kinds: []int{30460}}); len(evs) != 0 {
		t.Fatalf("a non-member reads %d definitions", len(evs))
	}
}
