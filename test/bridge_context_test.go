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
	e, b := startScripted(t)
	e.a.must(e.alice.sign(t, 0, `{"name":"alice"}`))
	e.b.must(e.bob.sign(t, 0, `{"name":"bob"}`))
	// Each message is dated, not waited for: the thread a few seconds back,
	// each mention after what it must follow (the agent dates its replies
	// by its own clock, so a mention after a reply is dated past it).
	base := nostr.Now() - 10
	root := e.a.must(e.alice.signAt(t, base, 9, "plan: ship on friday", nostr.Tag{"h", "room"}, at(100)))
	inThread := func(ms int) []nostr.Tag {
		return []nostr.Tag{{"h", "room"}, {"e", root.ID, "", "root"}, at(ms)}
	}
	e.b.must(e.bob.signAt(t, base, 9, "friday is too soon", inThread(200)...))
	typo := e.a.must(e.alice.signAt(t, base, 9, "lets vot", inThread(300)...))
	e.a.must(e.alice.signAt(t, base, 40003, "let's vote on it", nostr.Tag{"h", "room"}, nostr.Tag{"e", typo.ID}))
	gone := e.b.must(e.bob.signAt(t, base, 9, "secret draft, deleted", inThread(400)...))
	e.a.must(e.alice.signAt(t, base, 9005, "", nostr.Tag{"h", "room"}, nostr.Tag{"e", gone.ID}))

	m1 := e.mentionAt(t, e.a, e.alice, base+1, "room", "[[context]] what do you think?", inThread(0)[1])
	reply1 := e.waitReply(t, "room", m1.ID, 20*time.Second, b)
	r1 := reply1.Content
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

	m2 := e.mentionAt(t, e.a, e.alice, reply1.CreatedAt+1, "room", "[[context]] and now?", inThread(0)[1])
	afterM2 := m2.CreatedAt // what comes after it in the thread is dated from its second on
	r2 := e.waitReply(t, "room", m2.ID, 20*time.Second, b).Content
	// the agent's own reply (which quotes the first context) and nothing before it
	if !strings.HasPrefix(r2, "context: [context: the earlier messages of this thread, root first, that you have not seen yet]\n[you (helper (alice's agent) npub1") ||
		strings.Count(r2, "friday is too soon") != 1 || strings.Contains(r2, "left out") {
		t.Fatalf("the second mention's context should hold only the agent's own reply, marked:\n%s", r2)
	}

	note := e.b.must(e.bob.sign(t, 9, "top-level note from bob", nostr.Tag{"h", "room"}))
	m3 := e.mentionAt(t, e.a, e.alice, note.CreatedAt+1, "room", "[[context]] top level")
	r3 := e.waitReply(t, "room", m3.ID, 20*time.Second, b).Content
	if !strings.Contains(r3, "[context: the channel's messages") || !strings.Contains(r3, "top-level note from bob") || strings.Contains(r3, "friday is too soon") {
		t.Fatalf("a top-level mention's context should hold the channel's top-level messages:\n%s", r3)
	}

	// The thread is now in the bridge's context cache: what happens in it
	// reaches the next prompt from the live subscription, edits and
	// deletes applied.
	later := max(afterM2, nostr.Now())
	draft := e.b.must(e.bob.signAt(t, later, 9, "later draft", inThread(500)...))
	e.b.must(e.bob.signAt(t, later, 40003, "later, edited", nostr.Tag{"h", "room"}, nostr.Tag{"e", draft.ID}))
	oops := e.b.must(e.bob.signAt(t, later, 9, "posted by mistake", inThread(600)...))
	e.b.must(e.bob.signAt(t, later, 9005, "", nostr.Tag{"h", "room"}, nostr.Tag{"e", oops.ID}))
	m4 := e.mentionAt(t, e.a, e.alice, later+1, "room", "[[context]] and after that?", inThread(0)[1])
	r4 := e.waitReply(t, "room", m4.ID, 20*time.Second, b).Content
	if !strings.Contains(r4, "later, edited") || strings.Contains(r4, "later draft") || strings.Contains(r4, "by mistake") {
		t.Fatalf("the cached thread's context should hold bob's edited message only:\n%s", r4)
	}
}
