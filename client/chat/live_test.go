package chat_test

import (
	"testing"
	"time"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Presence and typing expire; typing keeps its first time while renewed and
// ends with the author's message; observer turns come before typing.
func TestLiveSignals(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	now := t0
	m := chat.New(keys[0])
	m.SetClock(func() time.Time { return now })
	agent := keys[3]
	typing := func(id string) *nostr.Event {
		return &nostr.Event{ID: id, PubKey: agent, Kind: kinds.Typing, CreatedAt: nostr.Timestamp(now.Unix()), Tags: nostr.Tags{{"h", "c1"}}}
	}
	m.Apply(&nostr.Event{ID: "p1", PubKey: agent, Kind: kinds.Presence, Content: "online"})
	m.Apply(typing("t1"))
	now = t0.Add(3 * time.Second)
	m.Apply(typing("t2"))
	l := m.Live()
	at := t0.Add(5 * time.Second)
	if w := l.Working(agent, "c1", at); !w.Working || w.Source != chat.FromTyping || !w.Since.Equal(t0) || w.Elapsed != 5*time.Second {
		t.Fatalf("typing for 5 s: %+v", w)
	}
	if w := l.Working(agent, "c2", at); w.Working {
		t.Fatalf("working in another channel: %+v", w)
	}
	l.TurnStarted(agent, "c1", "turn1", t0.Add(time.Second))
	if w := l.Working(agent, "", at); w.Source != chat.FromObserver || w.Elapsed != 4*time.Second {
		t.Fatalf("a turn in flight comes first: %+v", w)
	}
	l.TurnEnded(agent, "turn1")
	if w := l.Working(agent, "", at); w.Source != chat.FromTyping {
		t.Fatalf("after the turn, typing again: %+v", w)
	}
	if w := l.Working(agent, "", now.Add(chat.TypingTTL+time.Second)); w.Working {
		t.Fatalf("typing past its TTL: %+v", w)
	}
	// the agent's answer ends its typing at once
	m.Apply(&nostr.Event{ID: "a1", PubKey: agent, Kind: kinds.Message, CreatedAt: nostr.Timestamp(now.Unix()), Tags: nostr.Tags{{"h", "c1"}}, Content: "done"})
	if got := l.Typing("c1", now); len(got) != 0 {
		t.Fatalf("still typing after its message: %v", got)
	}
	if p, ok := l.PresenceSeen(agent, now); !ok || p != chat.Online {
		t.Fatalf("presence %q %v", p, ok)
	}
	if p := l.Presence(agent, t0.Add(chat.PresenceTTL+time.Second)); p != chat.Offline {
		t.Fatalf("presence past its TTL: %q", p)
	}
}

// A presence comes online when it says online (or nothing) and its key was
// not online before it: a renewal, away, offline and the member's own keys
// do not (the chat answers only those that come online).
func TestComesOnline(t *testing.T) {
	now := time.Unix(1700000000, 0)
	m := chat.New(keys[0])
	m.SetClock(func() time.Time { return now })
	bob := keys[1]
	presence := func(pk, status string) *nostr.Event {
		return &nostr.Event{ID: pk + status, PubKey: pk, Kind: kinds.Presence, Content: status}
	}
	steps := []struct {
		ev   *nostr.Event
		want bool
		why  string
	}{
		{presence(keys[0], "online"), false, "the member's own presence"},
		{presence(bob, "away"), false, "away is not online"},
		{presence(bob, ""), true, "empty is online, after away"},
		{presence(bob, "online"), false, "a renewal while online"},
		{presence(bob, "offline"), false, "offline"},
		{presence(bob, "online"), true, "online again after offline"},
	}
	for _, s := range steps {
		if got := m.ComesOnline(s.ev); got != s.want {
			t.Fatalf("%s: ComesOnline = %v", s.why, got)
		}
		m.Apply(s.ev)
	}
	now = now.Add(chat.PresenceTTL + time.Second)
	if !m.ComesOnline(presence(bob, "online")) {
		t.Fatal("online after the last presence expired does not come online")
	}
}
