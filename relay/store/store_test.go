package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

var ctx = context.Background()

type signer struct{ sk, pk string }

func newSigner(t testing.TB) signer {
	sk := nostr.GeneratePrivateKey()
	pk, err := nostr.GetPublicKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	return signer{sk, pk}
}

func (s signer) event(t testing.TB, kind int, at int64, content string, tags ...nostr.Tag) *nostr.Event {
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content, Tags: nostr.Tags(tags)}
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	if err := ev.Sign(s.sk); err != nil {
		t.Fatal(err)
	}
	return ev
}

func mustSave(t testing.TB, s *SQLite, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := s.SaveEvent(ctx, ev); err != nil {
			t.Fatalf("save kind %d: %v", ev.Kind, err)
		}
	}
}

func TestConcurrentWritesPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hive.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := newSigner(t)
	const n = 400
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		ev := a.event(t, 9, int64(i), fmt.Sprint(i), nostr.Tag{"h", "c"})
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
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, _ := s.CountEvents(ctx, nostr.Filter{Tags: nostr.TagMap{"h": {"c"}}}); c != n {
		t.Fatalf("after reopen: %d events, want %d", c, n)
	}
	var ok string
	s.r.QueryRow("PRAGMA integrity_check").Scan(&ok)
	if ok != "ok" {
		t.Fatalf("integrity_check = %q", ok)
	}
}
