package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

func duplicateAndEphemeral(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a := NewSigner(t)
	ev := a.Event(t, 1, 10, "hi")
	mustSave(t, s, ev)
	if err := s.SaveEvent(ctx, ev); !isDuplicate(err) {
		t.Fatalf("second save: %v, want ErrDuplicate", err)
	}
	if err := s.SaveEvent(ctx, a.Event(t, 20001, 10, "presence")); !hasPrefix(err, "invalid:") {
		t.Fatalf("ephemeral event: %v, want an invalid: refusal", err)
	}
}

func replaceable(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a := NewSigner(t)
	p1 := a.Event(t, 0, 100, `{"name":"one"}`)
	p2 := a.Event(t, 0, 200, `{"name":"two"}`)
	old := a.Event(t, 0, 50, `{"name":"old"}`)
	mustSave(t, s, p1, p2)
	if err := s.SaveEvent(ctx, old); !hasPrefix(err, "duplicate:") {
		t.Fatalf("an older replaceable event: %v, want a duplicate: refusal", err)
	}
	if got := ids(t, s, nostr.Filter{Authors: []string{a.PK}, Kinds: []int{0}}); !slices.Equal(got, []string{p2.ID}) {
		t.Fatalf("profile = %v, want only the newest", got)
	}
	r1 := a.Event(t, 30078, 100, "x", nostr.Tag{"d", "read-state:a"})
	r2 := a.Event(t, 30078, 100, "y", nostr.Tag{"d", "read-state:b"})
	r3 := a.Event(t, 30078, 101, "z", nostr.Tag{"d", "read-state:a"})
	mustSave(t, s, r1, r2, r3)
	if got := ids(t, s, nostr.Filter{Kinds: []int{30078}}); len(got) != 2 || got[0] != r3.ID || got[1] != r2.ID {
		t.Fatalf("addressable = %v, want r3 and r2", got)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"d": {"read-state:a"}}}); !slices.Equal(got, []string{r3.ID}) {
		t.Fatalf("the replaced version is still in the tag index: %v", got)
	}
	x := a.Event(t, 10002, 500, "x")
	y := a.Event(t, 10002, 500, "y")
	lo, hi := x, y
	if hi.ID < lo.ID {
		lo, hi = hi, lo
	}
	mustSave(t, s, hi, lo)
	if got := ids(t, s, nostr.Filter{Kinds: []int{10002}}); !slices.Equal(got, []string{lo.ID}) {
		t.Fatalf("tie kept %v, want lowest id", got)
	}
	if err := s.SaveEvent(ctx, hi); err == nil {
		t.Fatal("higher id replaced lower id at the same created_at")
	}
}

func deletion(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a, b := NewSigner(t), NewSigner(t)
	mine := a.Event(t, 1, 10, "mine", nostr.Tag{"t", "x"})
	theirs := b.Event(t, 1, 10, "theirs")
	addr := a.Event(t, 30023, 10, "article", nostr.Tag{"d", "post"})
	mustSave(t, s, mine, theirs, addr)
	del := a.Event(t, 5, 20, "", nostr.Tag{"e", mine.ID}, nostr.Tag{"e", theirs.ID}, nostr.Tag{"a", "30023:" + a.PK + ":post"})
	mustSave(t, s, del)
	if got := ids(t, s, nostr.Filter{Kinds: []int{1, 30023}}); !slices.Equal(got, []string{theirs.ID}) {
		t.Fatalf("after deletion: %v, want only the other author's event", got)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"t": {"x"}}}); len(got) != 0 {
		t.Fatalf("a deleted event is still in the tag index: %v", got)
	}
	if err := s.SaveEvent(ctx, mine); !hasPrefix(err, "blocked:") {
		t.Fatalf("a deleted event sent again: %v, want a blocked: refusal", err)
	}
	if err := s.SaveEvent(ctx, a.Event(t, 30023, 15, "older than the deletion", nostr.Tag{"d", "post"})); !hasPrefix(err, "blocked:") {
		t.Fatalf("a version of a deleted address older than the deletion: %v, want a blocked: refusal", err)
	}
	mustSave(t, s, a.Event(t, 30023, 30, "article v2", nostr.Tag{"d", "post"})) // newer than the deletion: allowed
	// A deletion cannot delete a deletion, and b cannot delete a's deletion.
	mustSave(t, s, a.Event(t, 5, 40, "", nostr.Tag{"e", del.ID}), b.Event(t, 5, 41, "", nostr.Tag{"e", del.ID}))
	if got := ids(t, s, nostr.Filter{IDs: []string{del.ID}}); len(got) != 1 {
		t.Fatal("a deletion was deleted")
	}
	if err := s.SaveEvent(ctx, theirs); !isDuplicate(err) {
		t.Fatalf("b's event after a's deletion named it: %v, want it still stored (duplicate)", err)
	}
}

// deletionOfMany: one deletion naming 150 events (more than any backend
// binds one by one) deletes exactly its author's, and a filter of as many
// ids finds exactly what is left.
func deletionOfMany(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a, b := NewSigner(t), NewSigner(t)
	var named, left []string
	tags := nostr.Tags{}
	for i := 0; i < 150; i++ {
		who, kind := a, 1
		switch {
		case i%3 == 1:
			who = b // another author's: kept
		case i%30 == 2:
			kind = 5 // a deletion: kept
		}
		ev := who.Event(t, kind, int64(10+i), fmt.Sprint(i), nostr.Tag{"t", "many"})
		mustSave(t, s, ev)
		named = append(named, ev.ID)
		if who == b || kind == 5 {
			left = append(left, ev.ID)
		}
		tags = append(tags, nostr.Tag{"e", ev.ID})
	}
	mustSave(t, s, a.Event(t, 5, 500, "", tags...))
	got := ids(t, s, nostr.Filter{IDs: named, Limit: 500})
	slices.Sort(got)
	slices.Sort(left)
	if !slices.Equal(got, left) {
		t.Fatalf("after one deletion of 150 events: %d of them left, want %d (the other author's and the deletions)", len(got), len(left))
	}
	if n, err := s.CountEvents(ctx, nostr.Filter{Tags: nostr.TagMap{"t": {"many"}}}); err != nil || n != int64(len(left)) {
		t.Fatalf("counting what is left: %d, %v; want %d", n, err, len(left))
	}
}

// deletionInTheSameBatch: writes queued back to back (one commit batch, as
// a pipelining client's are) see the deletions stored before them in it: an
// event its author deleted earlier, or earlier in the batch, is refused; one
// deleted only later in the batch, or by someone else, is stored.
func deletionInTheSameBatch(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a, b := NewSigner(t), NewSigner(t)
	old := a.Event(t, 1, 1, "deleted long ago")
	mustSave(t, s, old, a.Event(t, 5, 2, "", nostr.Tag{"e", old.ID}))
	u, v := a.Event(t, 1, 3, "u"), a.Event(t, 1, 4, "v")
	theirs := b.Event(t, 1, 5, "theirs")
	writes := []struct {
		ev   *nostr.Event
		want string // "" stored, else the refusal's prefix
	}{
		{old, "blocked:"},
		{a.Event(t, 5, 10, "", nostr.Tag{"e", u.ID}, nostr.Tag{"e", theirs.ID}), ""},
		{u, "blocked:"}, // deleted earlier in the batch
		{theirs, ""},    // named by another author's deletion
		{v, ""},         // stored, then deleted below
		{a.Event(t, 5, 11, "", nostr.Tag{"e", v.ID}), ""},
		{v, "blocked:"}, // sent again after its deletion
	}
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Add(1)
		if err := s.PublishAsync(ctx, w.ev, func(_ []*nostr.Event, err error) { errs[i] = err; wg.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	for i, w := range writes {
		if (w.want == "" && errs[i] != nil) || (w.want != "" && !hasPrefix(errs[i], w.want)) {
			t.Errorf("write %d (kind %d): %v, want %q", i, w.ev.Kind, errs[i], w.want)
		}
	}
	if got := ids(t, s, nostr.Filter{Kinds: []int{1}}); !slices.Equal(got, idsOf([]*nostr.Event{theirs})) {
		t.Fatalf("kind 1 events left: %v, want only the other author's", got)
	}
}

func deletionByAddressIsStrict(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a, b := NewSigner(t), NewSigner(t)
	post := a.Event(t, 30023, 10, "article", nostr.Tag{"d", "post"})
	mustSave(t, s, post)
	for _, coord := range []string{
		"030023:" + a.PK + ":post",                   // leading zero
		"30023:" + fmt.Sprintf("%X", a.PK) + ":post", // capitals
		"30023:" + a.PK,                              // no d
		" 30023:" + a.PK + ":post",                   // space
	} {
		mustSave(t, s, a.Event(t, 5, 20, "", nostr.Tag{"a", coord}))
		if got := ids(t, s, nostr.Filter{IDs: []string{post.ID}}); len(got) != 1 {
			t.Fatalf("the non-canonical coordinate %q deleted the address", coord)
		}
	}
	mustSave(t, s, b.Event(t, 5, 20, "", nostr.Tag{"a", "30023:" + a.PK + ":post"}))
	if got := ids(t, s, nostr.Filter{IDs: []string{post.ID}}); len(got) != 1 {
		t.Fatal("another author's deletion by address deleted the event")
	}
}

func expiration(t *testing.T, newStore New) {
	now := time.Unix(1_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	set := func(t time.Time) { mu.Lock(); now = t; mu.Unlock() }
	s := open(t, newStore, Options{Now: clock})
	a := NewSigner(t)
	if err := s.SaveEvent(ctx, a.Event(t, 1, 10, "gone", nostr.Tag{"expiration", "999999"})); !hasPrefix(err, "invalid:") {
		t.Fatalf("an expired event: %v, want an invalid: refusal", err)
	}
	if err := s.SaveEvent(ctx, a.Event(t, 1, 10, "bad", nostr.Tag{"expiration", "soon"})); !hasPrefix(err, "invalid:") {
		t.Fatalf("a malformed expiration: %v, want an invalid: refusal", err)
	}
	soon := a.Event(t, 1, 10, "soon", nostr.Tag{"expiration", "1000010"})
	mustSave(t, s, soon)
	if got := ids(t, s, nostr.Filter{}); !slices.Equal(got, []string{soon.ID}) {
		t.Fatalf("before expiry: %v", got)
	}
	set(time.Unix(1_000_020, 0))
	if got := ids(t, s, nostr.Filter{}); len(got) != 0 {
		t.Fatalf("expired event still served: %v", got)
	}
	if n, _ := s.CountEvents(ctx, nostr.Filter{}); n != 0 {
		t.Fatalf("expired event still counted: %d", n)
	}
	if err := s.SweepExpired(ctx); err != nil {
		t.Fatal(err)
	}
	set(time.Unix(1_000_000, 0)) // the row would be visible again had the sweep left it
	if got := ids(t, s, nostr.Filter{}); len(got) != 0 {
		t.Fatalf("sweep left %v", got)
	}
}

func concurrentWritesPersist(t *testing.T, newStore New) {
	reopen := newStore(t, Options{})
	s := reopen()
	a := NewSigner(t)
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
	s = reopen()
	defer s.Close()
	if c, _ := s.CountEvents(ctx, nostr.Filter{Tags: nostr.TagMap{"h": {"c"}}}); c != n {
		t.Fatalf("after reopen: %d events, want %d", c, n)
	}
}

// asyncOKOnlyAfterCommit: when PublishAsync reports success, the event is
// committed: a store opened afresh on the same log finds it.
func asyncOKOnlyAfterCommit(t *testing.T, newStore New) {
	reopen := newStore(t, Options{})
	s := reopen()
	a := NewSigner(t)
	const n = 200
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		ev := a.Event(t, 9, int64(i), fmt.Sprint(i), nostr.Tag{"h", "c"})
		wg.Add(1)
		if err := s.PublishAsync(ctx, ev, func(_ []*nostr.Event, err error) {
			defer wg.Done()
			if err == nil {
				mu.Lock()
				acked = append(acked, ev.ID)
				mu.Unlock()
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	other := reopen() // a second handle on the same log, while the first is open
	defer other.Close()
	defer s.Close()
	if len(acked) != n {
		t.Fatalf("%d of %d writes acknowledged", len(acked), n)
	}
	got, err := other.Query(ctx, nostr.Filter{IDs: acked, Limit: n})
	if err != nil || len(got) != n {
		t.Fatalf("another handle finds %d of %d acknowledged events (%v)", len(got), n, err)
	}
}

func deleteEvent(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a := NewSigner(t)
	ev := a.Event(t, 1, 10, "x", nostr.Tag{"t", "y"})
	mustSave(t, s, ev)
	if err := s.DeleteEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"t": {"y"}}}); len(got) != 0 {
		t.Fatalf("deleted event still found: %v", got)
	}
	mustSave(t, s, ev) // not a NIP-09 deletion: it may come back
}
