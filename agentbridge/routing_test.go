package agentbridge

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// noHub is a hub that holds nothing (no member list, no profiles).
type noHub struct{ HubConn }

func (noHub) Query(context.Context, nostr.Filter) ([]*nostr.Event, error) { return nil, nil }

// decider is a runner that decides for agent, owned by alice, answering
// its owner only, in channel c (a stream) and d (a DM).
func decider(t *testing.T, agent, alice string) (*runner, map[string]channelInfo) {
	state, err := OpenState(t.TempDir(), "a", func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { state.Flush() })
	log := slog.New(slog.DiscardHandler)
	r := &runner{cfg: &AgentConfig{Name: "helper"}, keys: identity.Keys{PublicHex: agent}, owner: alice, log: log, state: state,
		gate: newAnswerGate(Answer{Owner: true}, nil, alice, log), prior: &priorReplies{agent: agent, known: true, log: log}}
	return r, map[string]channelInfo{"c": {typ: "stream"}, "d": {typ: "dm"}}
}

// decide's table: what the agent answers, refuses with a reason, or
// ignores; a refused or answered mention is not decided again.
func TestDecide(t *testing.T) {
	agent, alice, bob := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	r, channels := decider(t, agent, alice)
	n := 0
	ev := func(author, content string, tags ...nostr.Tag) *nostr.Event {
		n++
		return &nostr.Event{ID: fmt.Sprintf("m%d", n), Kind: 9, PubKey: author, CreatedAt: nostr.Now(), Content: content, Tags: tags}
	}
	h, p := nostr.Tag{"h", "c"}, nostr.Tag{"p", agent}
	cases := []struct {
		name    string
		ev      *nostr.Event
		verdict verdict
		why     string
	}{
		{"mention", ev(alice, "hi", h, p), answer, ""},
		{"no p", ev(alice, "hi", h), ignore, "does not mention"},
		{"dm without p", ev(alice, "hi", nostr.Tag{"h", "d"}), answer, ""},
		{"own event", ev(agent, "hi", h, p), ignore, "own event"},
		{"not a member", ev(alice, "hi", nostr.Tag{"h", "x"}, p), ignore, "not a member of channel x"},
		{"no channel", ev(alice, "hi", p), ignore, "no channel"},
		{"not a message", &nostr.Event{ID: "k7", Kind: 7, PubKey: alice, Tags: nostr.Tags{h, p}}, ignore, "not a message"},
		{"hop limit", ev(alice, "hi", h, p, nostr.Tag{"hops", "3"}), refuse, "hop limit reached (3): agents answering agents stop here"},
		{"hop limit in a dm", ev(alice, "hi", nostr.Tag{"h", "d"}, nostr.Tag{"hops", "4"}), refuse, "hop limit reached (4)"},
		{"gate", ev(bob, "hi", h, p), refuse, "not answered: this agent answers only its owner (answer = \"owner\" in its bridge config)"},
		{"named without the tag", ev(alice, "ask @Helper now", h), refuse, "your message names @helper in its text but does not tag the agent (no p tag)"},
		{"named past the hop limit", ev(alice, "@helper", h, nostr.Tag{"hops", "5"}), refuse, "does not tag the agent"},
		{"named by a stranger", ev(bob, "@helper", h), refuse, "not answered: this agent answers only its owner"},
		{"a longer name", ev(alice, "@helpers", h), ignore, "does not mention"},
	}
	for _, c := range cases {
		d := r.decide(context.Background(), noHub{}, c.ev, channels)
		if d.verdict != c.verdict || !strings.Contains(d.why, c.why) || (c.why == "" && d.why != "") {
			t.Errorf("%s: verdict %d why %q, want %d %q", c.name, d.verdict, d.why, c.verdict, c.why)
		}
		if d.verdict != ignore && d.m.ID != c.ev.ID {
			t.Errorf("%s: the mention is %q", c.name, d.m.ID)
		}
	}
	refused := ev(bob, "hi", h, p)
	r.state.MarkAnswered([]Mention{asMention(refused)}, 0)
	if d := r.decide(context.Background(), noHub{}, refused, channels); d.verdict != ignore || d.why != "" {
		t.Errorf("a mention decided before: %+v", d)
	}
	roots := map[string]*nostr.Event{ // the thread a mention is in, as the hub reads it
		"r0": {ID: "r0", Kind: 9, PubKey: alice, Tags: nostr.Tags{h, p}},
		"r1": {ID: "x1", Kind: 9, PubKey: alice, Tags: nostr.Tags{h, p, {"e", "p1", "", "reply"}, {"e", "r1", "", "root"}}},
		"p2": {ID: "x2", Kind: 9, PubKey: alice, Tags: nostr.Tags{h, p, {"e", "p2", "", "reply"}}},
	}
	for want, e := range roots {
		if d := r.decide(context.Background(), noHub{}, e, channels); d.m.Root != want {
			t.Errorf("mention with tags %v: root %q, want %q", e.Tags, d.m.Root, want)
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
