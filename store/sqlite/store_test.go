package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/ainb/hive/store/storetest"
	"github.com/nbd-wtf/go-nostr"
)

var ctx = context.Background()

func mustSave(t testing.TB, s *sqlite.Store, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := s.SaveEvent(ctx, ev); err != nil {
			t.Fatalf("save kind %d: %v", ev.Kind, err)
		}
	}
}

// TestConcurrentWritesPersist: concurrent writes survive a reopen and leave
// a database file SQLite finds intact.
func TestConcurrentWritesPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hive.db")
	s, err := sqlite.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := storetest.NewSigner(t)
	const n = 400
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		ev := a.Event(t, 9, int64(i), fmt.Sprint(i), nostr.Tag{"h", "c"})
		wg.Add(1)
		go func() { defer wg.Done(); errs <- s.SaveEvent(ctx, ev) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = sqlite.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, _ := s.CountEvents(ctx, nostr.Filter{Tags: nostr.TagMap{"h": {"c"}}}); c != n {
		t.Fatalf("after reopen: %d events, want %d", c, n)
	}
	var ok string
	s.ReadDB().QueryRow("PRAGMA integrity_check").Scan(&ok)
	if ok != "ok" {
		t.Fatalf("integrity_check = %q", ok)
	}
}
