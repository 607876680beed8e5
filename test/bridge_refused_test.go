package test

import (
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/relay"
	"github.com/nbd-wtf/go-nostr"
)

// A reply the hub refuses for good is replaced by a failure reply the hub
// accepts, so the mention is answered once. The refusal is real: this hub
// takes at most 8 KiB of content, a mention of exactly that is accepted, and
// the scripted agent's answer quotes it after "heard 1: ", which goes over.
func TestBridgeRefusedReplyFallsBack(t *testing.T) {
	const limit = 8 << 10
	e := newBridgeEnv(t, func(c *relay.Config) { c.MaxContentBytes = limit })
	e.scripted(t)
	b := e.start(t)

	m, r := e.ask(t, b, "echo this: "+strings.Repeat("x", limit-len("echo this: ")), 20*time.Second)
	if !strings.Contains(r.Content, "could not post the answer") || !strings.Contains(r.Content, "invalid: content longer than 8192 bytes") {
		t.Fatalf("failure reply (%d bytes) %.200q", len(r.Content), r.Content)
	}
	replyTags(t, r, "room", m.ID, m.ID, e.alice.pk)
	if !strings.Contains(b.logs(), "the hub refused the reply") {
		t.Fatalf("the bridge did not log the refusal:\n%s", b.logs())
	}

	// The bridge goes on: the next mention gets its answer as usual.
	m2 := e.mention(t, e.a, e.alice, "room", "short one")
	if r2 := e.waitReply(t, "room", m2.ID, 20*time.Second, b); !strings.HasPrefix(r2.Content, "heard 1:") {
		t.Fatalf("next reply %q", r2.Content)
	}
	// m2's answer came after m's: a second answer to m would have come first
	if n := e.repliesTo(t, "room", m.ID); n != 1 {
		t.Fatalf("%d replies to the refused answer's mention, want 1", n)
	}
	// Exactly once across a restart: the failure reply counts as the answer.
	b.stop()
	b = e.start(t)
	e.settled(t, "room", b)
	if n := e.repliesTo(t, "room", m.ID); n != 1 {
		t.Fatalf("after a restart: %d replies to the mention, want 1; bridge log:\n%s", n, b.logs())
	}
}

// A mention that names only its parent (NIP-10 reply marker, no root) is in
// its parent's thread, as the hub reads it: the reply's root is the parent,
// so the hub accepts it (it refused a reply rooted at the mention).
func TestBridgeReplyToReplyOnlyMention(t *testing.T) {
	e, b := startScripted(t)
	top := e.b.must(e.bob.sign(t, 9, "a question for the room", nostr.Tag{"h", "room"}))
	m := e.mention(t, e.a, e.alice, "room", "what do you think?", nostr.Tag{"e", top.ID, "", "reply"})
	r := e.waitReply(t, "room", m.ID, 20*time.Second, b)
	if !strings.HasPrefix(r.Content, "heard 1:") {
		t.Fatalf("reply %q", r.Content)
	}
	replyTags(t, r, "room", top.ID, m.ID, e.alice.pk)
}
