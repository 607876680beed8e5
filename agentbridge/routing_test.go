package agentbridge

import (
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

func TestMentionRules(t *testing.T) {
	agent, alice := strings.Repeat("a", 64), strings.Repeat("b", 64)
	ev := func(author string, tags ...nostr.Tag) *nostr.Event {
		return &nostr.Event{ID: "m1", Kind: 9, PubKey: author, CreatedAt: 100, Content: "hi", Tags: tags}
	}
	cases := []struct {
		name   string
		ev     *nostr.Event
		typ    string
		member bool
		why    string
	}{
		{"mention", ev(alice, nostr.Tag{"h", "c"}, nostr.Tag{"p", agent}), "stream", true, ""},
		{"no p", ev(alice, nostr.Tag{"h", "c"}), "stream", true, "does not mention"},
		{"dm without p", ev(alice, nostr.Tag{"h", "c"}), "dm", true, ""},
		{"own event", ev(agent, nostr.Tag{"h", "c"}, nostr.Tag{"p", agent}), "stream", true, "own event"},
		{"not a member", ev(alice, nostr.Tag{"h", "c"}, nostr.Tag{"p", agent}), "stream", false, "not a member"},
		{"hop limit", ev(alice, nostr.Tag{"h", "c"}, nostr.Tag{"p", agent}, nostr.Tag{"hops", "3"}), "stream", true, "hop limit"},
	}
	for _, c := range cases {
		_, why := mentionOf(c.ev, agent, c.typ, c.member)
		if (c.why == "" && why != "") || !strings.Contains(why, c.why) {
			t.Errorf("%s: why %q, want %q", c.name, why, c.why)
		}
	}
	roots := map[string]*nostr.Event{ // the thread a mention is in, as the hub reads it
		"m1": ev(alice, nostr.Tag{"h", "c"}, nostr.Tag{"p", agent}),
		"r1": ev(alice, nostr.Tag{"h", "c"}, nostr.Tag{"p", agent}, nostr.Tag{"e", "p1", "", "reply"}, nostr.Tag{"e", "r1", "", "root"}),
		"p2": ev(alice, nostr.Tag{"h", "c"}, nostr.Tag{"p", agent}, nostr.Tag{"e", "p2", "", "reply"}),
	}
	for want, e := range roots {
		if m, _ := mentionOf(e, agent, "stream", true); m.Root != want {
			t.Errorf("mention with tags %v: root %q, want %q", e.Tags, m.Root, want)
		}
	}
}

func TestReplyTags(t *testing.T) {
	alice, bob, carol := strings.Repeat("b", 64), strings.Repeat("c", 64), strings.Repeat("d", 64)
	at := time.Unix(100, 0)
	batch := []Mention{
		{ID: "m1", Channel: "c", Author: alice, At: at, Root: "m1"},
		{ID: "m3", Channel: "c", Author: carol, At: at, Root: "r9"},
		{ID: "m4", Channel: "c", Author: alice, At: at, Root: "r9"},
		{ID: "m2", Channel: "c", Author: bob, At: at, Root: "r0", Hops: 1},
	}
	ev := replyEvent(batch, "answer")
	want := []string{"h c", "e r0  root", "e m2  reply", "q m1", "q m3", "q m4", "p " + alice, "p " + carol, "p " + bob, "hops 2"}
	if got := tagLines(ev); got != strings.Join(want, ",") {
		t.Fatalf("tags %q, want %q", got, want)
	}
	top := replyEvent(batch[:1], "x")
	if top.Tags[1][1] != "m1" || top.Tags[2][1] != "m1" {
		t.Fatalf("top-level mention: root and reply should both be the mention: %v", top.Tags)
	}
	// The other thread (r9) gets one pointer under its newest mention; the
	// top-level m1 is named by the reply itself.
	ev.ID, ev.PubKey = strings.Repeat("e", 64), strings.Repeat("f", 64)
	ptrs := pointerEvents(batch, ev)
	if len(ptrs) != 1 {
		t.Fatalf("%d pointers, want 1", len(ptrs))
	}
	want = []string{"h c", "e r9  root", "e m4  reply", "q " + ev.ID, "p " + carol, "p " + alice, "hops 2"}
	if got := tagLines(ptrs[0]); got != strings.Join(want, ",") {
		t.Fatalf("pointer tags %q, want %q", got, want)
	}
	if !strings.Contains(ptrs[0].Content, "nostr:nevent1") {
		t.Fatalf("pointer content %q has no link to the reply", ptrs[0].Content)
	}
	if n := len(pointerEvents(batch[:2:2], ev)); n != 0 {
		t.Fatalf("reply in r9 (newest m3) with a top-level m1: %d pointers, want none", n)
	}
	if n := len(pointerEvents([]Mention{{Channel: "c", Author: alice}}, ev)); n != 0 {
		t.Fatalf("a steer's reply has %d pointers", n)
	}
}

func tagLines(ev *nostr.Event) string {
	var got []string
	for _, tg := range ev.Tags {
		got = append(got, strings.Join(tg, " "))
	}
	return strings.Join(got, ",")
}

func TestClipLongReplies(t *testing.T) {
	long := strings.Repeat("é", MaxReplyBytes)
	c := clip(long)
	if len(c) > MaxReplyBytes || !strings.HasSuffix(c, truncationNote) || !strings.HasPrefix(c, "éé") {
		t.Fatalf("clip: %d bytes", len(c))
	}
	if clip("short") != "short" {
		t.Fatal("short text changed")
	}
}
