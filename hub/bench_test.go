package hub

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/store/storetest"
	"github.com/nbd-wtf/go-nostr"
)

// benchHub opens a hub on a fresh SQLite file, closed when b ends, and
// returns it with its admin's keys.
func benchHub(b *testing.B) (*Hub, identity.Keys) {
	b.Helper()
	admin, _ := identity.GenerateKeys()
	hk, _ := identity.GenerateKeys()
	h, err := Open(Config{OpenStore: sqliteAt(filepath.Join(b.TempDir(), "hive.db")), Admin: admin.PublicHex, Keys: hk, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(h.Close)
	return h, admin
}

// benchMessages opens a hub with one channel and a thread root in it, and
// signs b.N messages for it, one in replyEvery a reply to the root.
func benchMessages(b *testing.B, replyEvery int) (*Hub, []*nostr.Event) {
	h, admin := benchHub(b)
	ctx := context.Background()
	sign := func(kind int, at int64, content string, tags ...nostr.Tag) *nostr.Event {
		ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content, Tags: tags}
		ev.Sign(admin.SecretHex)
		return ev
	}
	if _, err := h.Store.Publish(ctx, sign(9007, 1, "", nostr.Tag{"h", "general"}, nostr.Tag{"name", "general"})); err != nil {
		b.Fatal(err)
	}
	root := sign(9, 2, "root", nostr.Tag{"h", "general"})
	h.Store.Publish(ctx, root)
	evs := make([]*nostr.Event, b.N)
	for i := range evs {
		tags := nostr.Tags{{"h", "general"}, {"p", admin.PublicHex}}
		if i%replyEvery == 0 {
			tags = append(tags, nostr.Tag{"e", root.ID, "", "root"})
		}
		evs[i] = sign(9, int64(10+i), fmt.Sprint("message number ", i, " with a few words of text in it"), tags...)
	}
	return h, evs
}

// BenchmarkIngestMessages measures the write path of the hub (store plus the
// projector's checks) for kind 9 messages, a fifth of them thread replies.
func BenchmarkIngestMessages(b *testing.B) {
	h, evs := benchMessages(b, 5)
	b.ResetTimer()
	storetest.PublishAll(b, evs, h.Store)
}

// BenchmarkViewUpdate compares, on a hub with 500 private channels of 20
// members each, what a state change cost before (reloading the view from the
// tables) with what it costs now (applying its delta to a copy of what it
// changes).
func BenchmarkViewUpdate(b *testing.B) {
	h, admin := benchHub(b)
	ctx := context.Background()
	sign := func(kind int, tags ...nostr.Tag) *nostr.Event {
		ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Now(), Tags: tags}
		ev.Sign(admin.SecretHex)
		return ev
	}
	members := make([]string, 20)
	for i := range members {
		k, _ := identity.GenerateKeys()
		members[i] = k.PublicHex
	}
	var wg sync.WaitGroup
	for c := 0; c < 500; c++ {
		id := fmt.Sprint("c", c)
		if _, err := h.Store.Publish(ctx, sign(9007, nostr.Tag{"h", id}, nostr.Tag{"name", id}, nostr.Tag{"visibility", "private"})); err != nil {
			b.Fatal(err)
		}
		for _, m := range members {
			wg.Add(1)
			h.Store.PublishAsync(ctx, sign(9000, nostr.Tag{"h", id}, nostr.Tag{"p", m}), func([]*nostr.Event, error) { wg.Done() })
		}
	}
	wg.Wait()
	b.Run("reload", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := loadView(h.Store.Reader(), h.admin); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("delta", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ch, pk, r := fmt.Sprint("c", i%500), members[i%20], []role{roleGuest, roleMember}[i%2]
			h.publishView([]delta{func(e *viewEdit) { e.setRole(ch, pk, r) }})
		}
	})
}

// BenchmarkIngestWaiting is the benchmark's ingest workload in process: 8
// publishers, each waiting for its commit before the next event, so the
// writer commits batches of one to eight. It reports the process's CPU per
// event (user + system, from getrusage), which the machine's load does not
// inflate the way it does wall time, and the bytes written per event.
func BenchmarkIngestWaiting(b *testing.B) {
	h, evs := benchMessages(b, 3)
	ctx := context.Background()
	const publishers = 8
	cpu0, wrote0 := storetest.ProcessCPU(), processWrote(b)
	b.ResetTimer()
	var wg sync.WaitGroup
	for p := 0; p < publishers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p; i < len(evs); i += publishers {
				if _, err := h.Store.Publish(ctx, evs[i]); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((storetest.ProcessCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/event")
	b.ReportMetric(float64(processWrote(b)-wrote0)/1024/float64(b.N), "written-KB/event")
}

// processWrote is how many bytes this process passed to write calls so far
// (/proc/self/io wchar: the WAL, the checkpoints into the database file).
func processWrote(b *testing.B) int64 {
	io, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skip("no /proc/self/io:", err)
	}
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
