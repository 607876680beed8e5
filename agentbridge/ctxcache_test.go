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

// cachedThread is a runner whose context cache holds a followed thread of
// n messages by alice and bob (with their names), and a mention in it.
func cachedThread(t testing.TB, n int) (*contextBuilder, Mention, string) {
	agent, _ := identity.KeysFromSecretHex(nostr.GeneratePrivateKey())
	alice, bob := nostr.GeneratePrivateKey(), nostr.GeneratePrivateKey()
	state, err := OpenState(t.TempDir(), "a", func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { state.Flush() }) // the writer is done before the directory goes
	r := &contextBuilder{cfg: &AgentConfig{Context: ContextChannel, ContextMessages: DefaultContextMessages, ContextBytes: DefaultContextBytes},
		me: agent.PublicHex, state: state, log: slog.New(slog.DiscardHandler), cache: newCtxCache(agent.PublicHex)}
	r.cache.follow([]string{"c"}, time.Now().Add(-time.Hour), true)
	sign := func(sk string, kind int, content string, at int, tags ...nostr.Tag) *nostr.Event {
		ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(1_700_000_000 + at), Content: content, Tags: tags}
		ev.Sign(sk)
		r.cache.apply(ev)
		return ev
	}
	sign(alice, 0, `{"name":"alice"}`, 0)
	sign(bob, 0, `{"name":"bob"}`, 0)
	root := sign(alice, 9, "the plan", 1, nostr.Tag{"h", "c"})
	for i := 1; i < n; i++ {
		sk := alice
		if i%2 == 1 {
			sk = bob
		}
		sign(sk, 9, fmt.Sprintf("thread message %d: %s", i, strings.Repeat("words ", 20)), 1+i, nostr.Tag{"h", "c"}, nostr.Tag{"e", root.ID, "", "root"})
	}
	mention := sign(alice, 9, "what now?", n+2, nostr.Tag{"h", "c"}, nostr.Tag{"e", root.ID, "", "root"}, nostr.Tag{"p", agent.PublicHex})
	r.cache.threads[root.ID] = true // as once loaded: the cache follows it from here
	return r, asMention(mention), bob
}

// A thread the cache holds gives the context without the hub: names,
// the newest messages, the cut line.
func TestContextFromCache(t *testing.T) {
	r, m, bob := cachedThread(t, 200)
	pc := r.contextFrom(context.Background(), nil, "s", []Mention{m})
	r.state.SetSeen("s", pc.scope, pc.upTo)
	if !strings.Contains(pc.text, "(180 earlier message(s) left out)") || !strings.Contains(pc.text, "[bob npub1") || !strings.Contains(pc.text, "thread message 199") ||
		pc.names(m.Author) == "" || !strings.HasPrefix(pc.names(m.Author), "alice npub1") || pc.upTo.ID != m.ID {
		t.Fatalf("context %+v:\n%s", pc.upTo, pc.text)
	}
	r.cache.apply(signed(bob, "bob's late point", m)) // live, after the seen mark
	next := m
	next.ID = "next"
	pc = r.contextFrom(context.Background(), nil, "s", []Mention{next})
	if !strings.HasSuffix(pc.text, "bob's late point") || strings.Contains(pc.text, "thread message") {
		t.Fatalf("the next context should hold only what came after the seen mark:\n%s", pc.text)
	}
}

// signed is sk's reply in m's thread, a second after it.
func signed(sk, text string, m Mention) *nostr.Event {
	ev := &nostr.Event{Kind: 9, CreatedAt: nostr.Timestamp(m.At.Unix() + 1), Content: text, Tags: nostr.Tags{{"h", m.Channel}, {"e", m.Root, "", "root"}}}
	ev.Sign(sk)
	return ev
}

// The bridge's own part of a prompt with context from a 200-message thread
// it holds: the session's first prompt there (every message new to it),
// and a later one (the last 3 new).
// go test -run '^$' -bench ContextFromCachedThread200 ./agentbridge/
func BenchmarkContextFromCachedThread200(b *testing.B) {
	r, m, _ := cachedThread(b, 200)
	rows := r.cache.model.Thread(m.Root)
	seenAt, _ := r.cache.model.Millis(rows[len(rows)-4].ID)
	for _, bc := range []struct {
		name string
		seen SeenMark
	}{{"first", SeenMark{}}, {"later", SeenMark{ID: rows[len(rows)-4].ID, At: seenAt}}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r.state.SetSeen("s", "thread:"+m.Root, bc.seen)
				r.contextFrom(context.Background(), nil, "s", []Mention{m})
			}
		})
	}
}
