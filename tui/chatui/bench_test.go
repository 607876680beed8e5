package chatui

import (
	"fmt"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/session"
	"github.com/nbd-wtf/go-nostr"
)

// A keystroke in the composer to the redrawn screen with 5,000 rows of the
// open channel loaded (go test -bench Keystroke ./tui/chatui).
func BenchmarkKeystroke5000Rows(b *testing.B) {
	m, _ := loaded(b, 5000, 0)
	b.ResetTimer()
	for b.Loop() {
		m.Update(text("a"))
		m.View()
	}
}

// A live message to the redrawn screen with 5,000 rows loaded.
func BenchmarkLiveMessage5000Rows(b *testing.B) {
	m, evs := loaded(b, 5000, 10000)
	if b.N > len(evs)-5000 {
		b.Fatal("more iterations than prepared messages")
	}
	b.ResetTimer()
	for i := range b.N {
		m.Update(session.Batch{Events: evs[5000+i : 5001+i]})
		m.View()
	}
}

// loaded is a chat with n of bob's messages in general shown, and extra
// more signed but not applied.
func loaded(b testing.TB, n, extra int) (*Model, []nostr.Event) {
	w := newWorld(b)
	m := New(ctxT(b), w.alice, Options{Channel: "general"})
	var evs []nostr.Event
	for i := range n + extra {
		ev, err := w.bob.Sign(client.Message("general", fmt.Sprintf("message %d with some words to wrap", i)))
		if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, ev)
	}
	m.Update(session.Loaded{Channels: []client.Channel{{ID: "general", Name: "general"}}, Events: evs[:n]})
	m.View()
	return m, evs
}
