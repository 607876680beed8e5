package test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// at is an ms tag, so messages posted within one second keep their order.
func at(ms int) nostr.Tag { return nostr.Tag{"ms", strconv.Itoa(ms)} }

// A mention in a thread gets the thread's earlier messages in its prompt:
// root first, authors by name and short npub, edits applied, deletes left
// out, the mention last and marked; the next mention in the thread gets
// only what the session has not seen (the agent's own reply, marked as its
// own); a top-level mention gets the channel's messages.
func TestBridgePromptContext(t *testing.T) {
	e := newBridgeEnv(t)
	e.scripted(t)
	b := e.start(t)
	e.a.must(e.alice.sign(t, 0, `{"name":"alice"}`))
	e.b.must(e.bob.sign(t, 0, `{"name":"bob"}`))
	root := e.a.must(e.alice.sign(t, 9, "plan: ship on friday", nostr.Tag{"h", "room"}, at(100)))
	inThread := func(ms int) []nostr.Tag {
		return []nostr.Tag{{"h", "room"}, {"e", root.ID, "", "root"}, at(ms)}
	}
	e.b.must(e.bob.sign(t, 9, "friday is too soon", inThread(200)...))
	typo := e.a.must(e.alice.sign(t, 9, "lets vot", inThread(300)...))
	e.a.must(e.alice.sign(t, 40003, "let's vote on it", nostr.Tag{"h", "room"}, nostr.Tag{"e", typo.ID}))
	gone := e.b.must(e.bob.sign(t, 9, "secret draft, deleted", inThread(400)...))
	e.a.must(e.alice.sign(t, 9005, "", nostr.Tag{"h", "room"}, nostr.Tag{"e", gone.ID}))
	time.Sleep(1100 * time.Millisecond) // the mention's second comes after the thread's

	m1 := e.mention(t, e.a, e.alice, "room", "[[context]] what do you think?", inThread(0)[1])
	r1 := e.waitReply(t, "room", m1.ID, 20*time.Second, b).Content
	for _, want := range []string{"[context: the earlier messages of this thread", "[alice npub1", "plan: ship on friday", "[bob npub1", "friday is too soon", ", edited, event " + typo.ID, "let's vote on it"} {
		if !strings.Contains(r1, want) {
			t.Fatalf("the prompt's context lacks %q:\n%s", want, r1)
		}
	}
	for _, never := range []string{"lets vot", "secret draft", "what do you think"} {
		if strings.Contains(r1, never) {
			t.Fatalf("the prompt's context holds %q:\n%s", never, r1)
		}
	}
	if i, j, k := strings.Index(r1, "plan: ship"), strings.Index(r1, "friday is too soon"), strings.Index(r1, "let's vote"); !(i < j && j < k) {
		t.Fatalf("the context is not root first, oldest first:\n%s", r1)
	}

	time.Sleep(1100 * time.Millisecond)
	m2 := e.mention(t, e.a, e.alice, "room", "[[context]] and now?", inThread(0)[1])
	r2 := e.waitReply(t, "room", m2.ID, 20*time.Second, b).Content
	// the agent's own reply (which quotes the first context) and nothing before it
	if !strings.HasPrefix(r2, "context: [context: the earlier messages of this thread, root first, that you have not seen yet]\n[you (helper (alice's agent) npub1") ||
		strings.Count(r2, "friday is too soon") != 1 || strings.Contains(r2, "left out") {
		t.Fatalf("the second mention's context should hold only the agent's own reply, marked:\n%s", r2)
	}

	e.b.must(e.bob.sign(t, 9, "top-level note from bob", nostr.Tag{"h", "room"}))
	time.Sleep(1100 * time.Millisecond)
	m3 := e.mention(t, e.a, e.alice, "room", "[[context]] top level")
	r3 := e.waitReply(t, "room", m3.ID, 20*time.Second, b).Content
	if !strings.Contains(r3, "[context: the channel's messages") || !strings.Contains(r3, "top-level note from bob") || strings.Contains(r3, "friday is too soon") {
		t.Fatalf("a top-level mention's context should hold the channel's top-level messages:\n%s", r3)
	}

	// The thread is now in the bridge's context cache: what happens in it
	// reaches the next prompt from the live subscription, edits and
	// deletes applied.
	draft := e.b.must(e.bob.sign(t, 9, "later draft", inThread(500)...))
	e.b.must(e.bob.sign(t, 40003, "later, edited", nostr.Tag{"h", "room"}, nostr.Tag{"e", draft.ID}))
	oops := e.b.must(e.bob.sign(t, 9, "posted by mistake", inThread(600)...))
	e.b.must(e.bob.sign(t, 9005, "", nostr.Tag{"h", "room"}, nostr.Tag{"e", oops.ID}))
	time.Sleep(1100 * time.Millisecond)
	m4 := e.mention(t, e.a, e.alice, "room", "[[context]] and after that?", inThread(0)[1])
	r4 := e.waitReply(t, "room", m4.ID, 20*time.Second, b).Content
	if !strings.Contains(r4, "later, edited") || strings.Contains(r4, "later draft") || strings.Contains(r4, "by mistake") {
		t.Fatalf("the cached thread's context should hold bob's edited message only:\n%s", r4)
	}
}
