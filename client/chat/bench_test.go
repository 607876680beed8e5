package chat_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// channelLog is a channel of n messages (a fifth of them replies) and 2n
// overlays: reactions, edits and a few deletes.
func channelLog(n int) []nostr.Event {
	evs := make([]nostr.Event, 0, 3*n)
	for i := 0; i < n; i++ {
		ev := nostr.Event{ID: fmt.Sprintf("%064x", i), PubKey: keys[i%len(keys)], CreatedAt: nostr.Timestamp(1700000000 + i/3), Kind: kinds.Message,
			Content: "a message of some ordinary length, about as long as people write", Tags: nostr.Tags{{"h", "c1"}, {"ms", fmt.Sprint(i % 1000)}}}
		if i%5 == 4 {
			ev.Tags = append(ev.Tags, nostr.Tag{"e", fmt.Sprintf("%064x", i-4), "", "root"})
		}
		evs = append(evs, ev)
	}
	for i := 0; i < 2*n; i++ {
		target := fmt.Sprintf("%064x", (i*7919)%n)
		ev := nostr.Event{ID: fmt.Sprintf("o%063x", i), PubKey: keys[i%len(keys)], CreatedAt: nostr.Timestamp(1700000000 + n/3 + i), Tags: nostr.Tags{{"h", "c1"}, {"e", target}}}
		switch i % 10 {
		case 0, 1, 2:
			ev.Kind, ev.Content = kinds.Edit, "an edited text"
		case 9:
			ev.Kind = kinds.DeleteInChannel
		default:
			ev.Kind, ev.Content = kinds.Reaction, "👍"
		}
		evs = append(evs, ev)
	}
	return evs
}

// BenchmarkBuildTimeline: a channel's timeline from its 10,000 messages and
// 20,000 overlays, then its view read once.
func BenchmarkBuildTimeline(b *testing.B) {
	log := channelLog(10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := chat.New(keys[0])
		m.ApplyAll(log)
		if len(m.Timeline("c1")) == 0 {
			b.Fatal("empty timeline")
		}
	}
}

// BenchmarkApplyOne: one more event applied to a timeline of 10,000 rows
// (a new message in the middle of it, a reaction, an edit, by turns).
func BenchmarkApplyOne(b *testing.B) {
	base := channelLog(10000)[:10000]
	fresh := func() *chat.Model {
		m := chat.New(keys[0])
		m.ApplyAll(base)
		return m
	}
	m := fresh()
	evs := make([]nostr.Event, b.N)
	for i := range evs {
		ev := nostr.Event{ID: fmt.Sprintf("n%063x", i), PubKey: keys[1], CreatedAt: nostr.Timestamp(1700000000 + (i*13)%3333), Tags: nostr.Tags{{"h", "c1"}}}
		switch i % 3 {
		case 0:
			ev.Kind, ev.Content = kinds.Message, "new"
		case 1:
			ev.Kind, ev.Content = kinds.Reaction, "🎉"
			ev.Tags = append(ev.Tags, nostr.Tag{"e", fmt.Sprintf("%064x", (i*31)%10000)})
		default:
			ev.Kind, ev.Content = kinds.Edit, "edited"
			ev.Tags = append(ev.Tags, nostr.Tag{"e", fmt.Sprintf("%064x", (i*31)%10000)})
		}
		evs[i] = ev
	}
	b.ResetTimer()
	for i := range evs {
		if i%3000 == 2999 { // the timeline stays near 10,000 rows
			b.StopTimer()
			m = fresh()
			b.StartTimer()
		}
		m.Apply(&evs[i])
	}
}

// BenchmarkApplyRowView: one new message applied and the row it changed
// read back (what a surface does to redraw it).
func BenchmarkApplyRowView(b *testing.B) {
	m := chat.New(keys[0])
	m.ApplyAll(channelLog(10000))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := nostr.Event{ID: fmt.Sprintf("n%063x", i), PubKey: keys[1], CreatedAt: nostr.Timestamp(1700003400), Kind: kinds.Message, Tags: nostr.Tags{{"h", "c1"}}, Content: "new"}
		for _, c := range m.Apply(&ev) {
			m.Row(c.ID)
		}
	}
}

// TestMemoryPerRow reports the heap a loaded row takes (messages with
// their events' text, and two overlays each); it fails past 4 KiB.
func TestMemoryPerRow(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := chat.New(keys[0])
	m.ApplyAll(channelLog(10000)) // the events are garbage after: what stays is the model's
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / 10000
	t.Logf("heap per loaded row (with its 2 overlays and the text it keeps): %.0f bytes", per)
	if per > 4096 {
		t.Errorf("a row takes %.0f bytes", per)
	}
	runtime.KeepAlive(m)
}
