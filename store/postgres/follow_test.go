package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/storetest"
	"github.com/nbd-wtf/go-nostr"
)

// follower collects what Follow delivers.
type follower struct {
	mu    sync.Mutex
	seen  map[string]int
	local map[string]bool
	seqs  []int64
}

func follow(t *testing.T, s *Store, after int64) *follower {
	f := &follower{seen: map[string]int{}, local: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Follow(ctx, after, func(seq int64, st store.Stored, local bool) {
			f.mu.Lock()
			f.seen[st.Event.ID]++
			f.seqs = append(f.seqs, seq)
			if local {
				f.local[st.Event.ID] = true
			}
			f.mu.Unlock()
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

// repeatUntil runs act every 50 ms until done (checked under the lock)
// holds, failing with msg after 20 s.
func (f *follower) repeatUntil(t *testing.T, msg string, act func() error, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := act(); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		ok := done()
		f.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFor waits until every id was delivered, and checks each came once and
// in increasing sequence order.
func (f *follower) waitFor(t *testing.T, ids []string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		f.mu.Lock()
		missing := 0
		for _, id := range ids {
			if f.seen[id] == 0 {
				missing++
			}
		}
		f.mu.Unlock()
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events never reached the follower", missing, len(ids))
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, n := range f.seen {
		if n != 1 {
			t.Fatalf("event %s delivered %d times", id, n)
		}
	}
	for i := 1; i < len(f.seqs); i++ {
		if f.seqs[i] <= f.seqs[i-1] {
			t.Fatalf("sequence went from %d to %d", f.seqs[i-1], f.seqs[i])
		}
	}
}

// twoInstances opens two stores on one fresh database, as two hive
// instances sharing it; the test closes them.
func twoInstances(t *testing.T) (a, b *Store) {
	dsn := pg.DSN(t)
	a, b = open(t, dsn, store.Options{}), open(t, dsn, store.Options{})
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestFollowSeesAnotherInstancesCommits: two stores on one database, as two
// hive instances; what A commits reaches B's follower once each, in order,
// including what was committed before B started following.
func TestFollowSeesAnotherInstancesCommits(t *testing.T) {
	a, b := twoInstances(t)
	who := storetest.NewSigner(t)
	var ids []string
	publish := func(s *Store, n int) {
		for i := 0; i < n; i++ {
			ev := who.Event(t, 9, int64(len(ids)), fmt.Sprint(len(ids)), nostr.Tag{"h", "c"})
			if err := s.SaveEvent(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ev.ID)
		}
	}
	publish(a, 5) // before the follower starts: caught up from the log
	f := follow(t, b, 0)
	publish(a, 20)
	publish(b, 5)
	f.waitFor(t, ids)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, id := range ids {
		if want := i >= 25; f.local[id] != want {
			t.Fatalf("event %d (published on %s) reported local=%v", i, map[bool]string{true: "B", false: "A"}[want], f.local[id])
		}
	}
}

// TestFollowFromNow: a follower started with a negative sequence delivers
// only what is committed after it started.
func TestFollowFromNow(t *testing.T) {
	s := open(t, pg.DSN(t), store.Options{})
	defer s.Close()
	who := storetest.NewSigner(t)
	old := who.Event(t, 1, 1, "before")
	if err := s.SaveEvent(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	f := follow(t, s, -1)
	// Publish until the follower delivers: whatever it started from, it
	// must never deliver what came before it started.
	i := 0
	f.repeatUntil(t, "the follower never delivered anything", func() error {
		i++
		return s.SaveEvent(context.Background(), who.Event(t, 1, int64(2+i), "after"))
	}, func() bool { return len(f.seqs) > 0 })
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen[old.ID] != 0 {
		t.Fatal("a follower from now delivered an event committed before it started")
	}
	for id := range f.seen {
		if !f.local[id] {
			t.Fatalf("event %s, committed by this store, reported as another instance's", id)
		}
	}
}

// TestFollowCatchesUpAfterLosingItsConnection: the follower's connection is
// killed by the server; it reconnects and delivers what was committed
// meanwhile, nothing twice.
func TestFollowCatchesUpAfterLosingItsConnection(t *testing.T) {
	dsn := pg.DSN(t)
	s := open(t, dsn, store.Options{})
	defer s.Close()
	who := storetest.NewSigner(t)
	f := follow(t, s, 0)
	var ids []string
	killed := 0
	for round := 0; round < 3; round++ {
		for i := 0; i < 10; i++ {
			ev := who.Event(t, 1, int64(round*100+i), "x")
			if err := s.SaveEvent(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ev.ID)
		}
		f.waitFor(t, ids) // connected and caught up: now cut it
		var n int
		if err := s.r.QueryRow(`SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'hive follower') x`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		killed += n
	}
	if killed == 0 {
		t.Fatal("the follower's connection was never found to cut")
	}
	f.waitFor(t, ids)
}

// TestInstancesReplaceAtomically: two instances racing to store versions of
// the same replaceable event leave exactly one, the newest.
func TestInstancesReplaceAtomically(t *testing.T) {
	a, b := twoInstances(t)
	who := storetest.NewSigner(t)
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		s := a
		if i%2 == 1 {
			s = b
		}
		ev := who.Event(t, 30078, int64(1000+i), fmt.Sprint(i), nostr.Tag{"d", "state"})
		wg.Add(1)
		go func() { defer wg.Done(); s.SaveEvent(context.Background(), ev) }()
	}
	wg.Wait()
	got, err := a.Query(context.Background(), nostr.Filter{Kinds: []int{30078}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].CreatedAt != 1039 {
		t.Fatalf("after the race: %d versions stored (want only the newest)", len(got))
	}
}

// TestTextPostgreSQLCannotHoldIsRefused: a NUL in a tag value is stored by
// nothing; it is refused with invalid: rather than failing the batch.
func TestTextPostgreSQLCannotHoldIsRefused(t *testing.T) {
	s := open(t, pg.DSN(t), store.Options{})
	defer s.Close()
	who := storetest.NewSigner(t)
	err := s.SaveEvent(context.Background(), who.Event(t, 1, 1, "x", nostr.Tag{"t", "a\x00b"}))
	if err == nil || !strings.HasPrefix(err.Error(), "invalid:") {
		t.Fatalf("NUL in a tag: %v, want an invalid: refusal", err)
	}
	if got, err := s.Query(context.Background(), nostr.Filter{Tags: nostr.TagMap{"t": {"a\x00b"}}}); err != nil || len(got) != 0 {
		t.Fatalf("querying for a NUL value: %v, %v; want nothing and no error", got, err)
	}
}

// TestAnnounceReachesOtherInstancesOnly: an ephemeral event announced by A
// reaches B's follower (as sequence 0) and not A's own; one too large for a
// notification is refused.
func TestAnnounceReachesOtherInstancesOnly(t *testing.T) {
	a, b := twoInstances(t)
	fa, fb := follow(t, a, -1), follow(t, b, -1)
	who := storetest.NewSigner(t)
	ev := who.Event(t, 20002, 1, "", nostr.Tag{"h", "c"})
	// the followers may still be connecting: announce until B hears it
	fb.repeatUntil(t, "B never heard the announced event", func() error {
		return a.Announce(context.Background(), ev)
	}, func() bool { return fb.seen[ev.ID] > 0 })
	fa.mu.Lock()
	defer fa.mu.Unlock()
	if fa.seen[ev.ID] != 0 {
		t.Fatal("A's follower delivered A's own ephemeral event")
	}
	big := who.Event(t, 24200, 2, strings.Repeat("x", 9000), nostr.Tag{"p", who.PK})
	if err := a.Announce(context.Background(), big); err == nil {
		t.Fatal("a 9 KB ephemeral event was announced")
	}
}
