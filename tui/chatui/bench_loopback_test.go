package chatui

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/session"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// fill publishes n of bob's messages to channel through the hub (8 at a
// time), dated as a channel's history is: one a second up to now (a burst
// of thousands in one second would be loaded whole: client.FetchPage).
func fill(b testing.TB, w *world, channel string, n int) {
	b.Helper()
	start := nostr.Now() - nostr.Timestamp(n)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for k := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < n; i += 8 {
				ev := client.Message(channel, fmt.Sprintf("stored %05d", i))
				ev.CreatedAt = start + nostr.Timestamp(i)
				if _, err := w.bob.Publish(context.Background(), ev); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// The first screen of a channel with 10,000 stored messages, over
// loopback: the first load (channels, read state, the newest page and its
// overlays, profiles) and the first drawn screen showing the newest row.
func BenchmarkFirstScreen10000Stored(b *testing.B) {
	w := newWorld(b)
	fill(b, w, "general", 10000)
	b.ResetTimer()
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		m := New(ctx, w.alice, Options{Channel: "general"})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		m.Update(m.s.Load()(ctx))
		if !strings.Contains(m.View(), "stored ") {
			b.Fatal("the first screen shows no stored message")
		}
		cancel()
	}
}

// A message bob publishes, to alice's redrawn screen showing it: through
// the hub over loopback, alice's live feed (its 30 ms batching included)
// and one Update and View, with 5,000 rows loaded.
func BenchmarkLiveMessageLoopback(b *testing.B) {
	w := newWorld(b)
	fill(b, w, "general", 5000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, w.alice, Options{Channel: "general"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(m.s.Load()(ctx))
	next := make(chan tea.Msg, 1)
	wait := func() { j := m.s.Next(); go func() { next <- j(ctx) }() }
	wait()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		want := fmt.Sprintf("live %d", i)
		i++
		if _, err := w.bob.Publish(ctx, client.Message("general", want)); err != nil {
			b.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(m.View(), want); {
			if time.Now().After(deadline) {
				b.Fatalf("%q never showed", want)
			}
			select {
			case msg := <-next:
				m.Update(msg)
				wait()
			case <-time.After(time.Second):
			}
		}
	}
}

// TestMemory50Channels20000Rows states the chat's memory with 50 channels
// and 20,000 loaded rows (400 each, one overlay in ten) drawn: heap in use
// and the process's RSS (go test -run TestMemory50 -v ./tui/chatui).
func TestMemory50Channels20000Rows(t *testing.T) {
	w := newWorld(t)
	m := New(ctxT(t), w.alice, Options{})
	var chans []client.Channel
	var evs []nostr.Event
	for c := range 50 {
		id := fmt.Sprintf("ch%02d", c)
		chans = append(chans, client.Channel{ID: id, Name: id, Members: map[string]string{w.alice.PublicKey(): "owner"}})
		for i := range 400 {
			ev, err := w.bob.Sign(client.Message(id, fmt.Sprintf("message %d of %s with a few words in it", i, id)))
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
			if i%10 == 0 {
				r, _ := w.alice.Sign(client.Reaction(ev, "👍"))
				evs = append(evs, r)
			}
		}
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(session.Loaded{Channels: chans, Events: evs})
	for range 50 { // every channel opened and drawn once
		m.step(1)
		m.View()
	}
	evs = nil
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapInuse) - int64(before.HeapInuse)
	rows := 0
	for _, ch := range chans {
		rows += m.chat().Len(ch.ID)
	}
	if rows != 20000 {
		t.Fatalf("%d rows loaded, want 20000", rows)
	}
	t.Logf("50 channels, %d rows: heap in use %.1f MiB more (%.0f B a row), process RSS %s", rows, float64(heap)/(1<<20), float64(heap)/float64(rows), rss())
	if heap > 400<<20 {
		t.Fatalf("the chat holds %d MiB for 20,000 rows", heap>>20)
	}
	runtime.KeepAlive(m)
}

// rss is the process's resident set (VmRSS), or "?" off Linux.
func rss() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return "?"
}
