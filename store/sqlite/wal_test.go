package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/ainb/hive/store/storetest"
	"github.com/nbd-wtf/go-nostr"
)

// TestWALStaysBounded writes without a pause, 8 publishers each waiting for
// its commit as the hub's clients do, while a reader queries the log: the
// background checkpoints alone never find the writer idle, so the log never
// started over and the WAL grew by every page written (about 13 KB an
// event). The writer now has the log start over when it passes a quarter
// of WALLimit.
func TestWALStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hive.db")
	const limit = 2 << 20
	s, err := sqlite.Open(path, store.Options{WALLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := storetest.NewSigner(t)
	const publishers, each = 8, 250
	evs := make([]*nostr.Event, publishers*each)
	for i := range evs {
		evs[i] = a.Event(t, 9, int64(1000+i), fmt.Sprint("message number ", i, " with a few words in it"),
			nostr.Tag{"h", fmt.Sprint("ch", i%16)}, nostr.Tag{"e", fmt.Sprintf("%064x", i*7919)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var readers sync.WaitGroup
	readers.Add(1)
	go func() { // a reader always at work, as while serving
		defer readers.Done()
		for ctx.Err() == nil {
			s.QueryRaw(ctx, nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"ch3"}}, Limit: 20}, nil)
		}
	}()
	var peak atomic.Int64
	var wg sync.WaitGroup
	for p := 0; p < publishers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p; i < len(evs); i += publishers {
				if _, err := s.Publish(ctx, evs[i]); err != nil {
					t.Error(err)
					return
				}
				if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > peak.Load() {
					peak.Store(fi.Size())
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	readers.Wait()
	// The file passing a quarter of the limit wakes the checkpointer, whose passes
	// copy what the last second wrote; the writer's next transaction starts
	// the log over: the WAL passes the limit only by what is written while
	// those passes run, far under what 2,000 events write (~26 MB).
	if max := int64(4 * limit); peak.Load() > max {
		t.Fatalf("the WAL reached %.1f MB while writing %d events; want at most %.1f MB (WALLimit %.1f MB)",
			float64(peak.Load())/1e6, len(evs), float64(max)/1e6, float64(limit)/1e6)
	}
	t.Logf("WAL peak %.1f MB for %d events (limit %.1f MB)", float64(peak.Load())/1e6, len(evs), float64(limit)/1e6)
}
