package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

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

func open(t testing.TB, opts Options) *SQLite {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "hive.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func mustSave(t testing.TB, s *SQLite, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := s.SaveEvent(ctx, ev); err != nil {
			t.Fatalf("save kind %d: %v", ev.Kind, err)
		}
	}
}

func ids(t testing.TB, s *SQLite, f nostr.Filter) []string {
	t.Helper()
	evs, err := s.Query(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(evs))
	for i, ev := range evs {
		if !f.Matches(ev) {
			t.Errorf("filter %v returned non-matching event %s", f, ev)
		}
		out[i] = ev.ID
	}
	return out
}

func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTagMatchingIsExact(t *testing.T) {
	s := open(t, Options{})
	a := newSigner(t)
	x := newSigner(t).pk
	onlyInE := a.event(t, 1, 100, "x only inside an e tag", nostr.Tag{"e", x})
	inP := a.event(t, 1, 101, "x in a p tag", nostr.Tag{"p", x})
	prefix := a.event(t, 1, 102, "prefix of x in a p tag", nostr.Tag{"p", x[:32]})
	longer := a.event(t, 1, 103, "x plus suffix", nostr.Tag{"p", x + "00"})
	mustSave(t, s, onlyInE, inP, prefix, longer)

	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"p": {x}}}); !same(got, []string{inP.ID}) {
		t.Fatalf("#p:[x] = %v, want only %s", got, inP.ID)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"e": {x}}}); !same(got, []string{onlyInE.ID}) {
		t.Fatalf("#e:[x] = %v, want only %s", got, onlyInE.ID)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"p": {x[:32]}}}); !same(got, []string{prefix.ID}) {
		t.Fatalf("#p:[prefix] = %v, want only the event tagged with the prefix", got)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"q": {x}}}); len(got) != 0 {
		t.Fatalf("#q matched %v", got)
	}
}

func TestFilterSemantics(t *testing.T) {
	s := open(t, Options{})
	a, b := newSigner(t), newSigner(t)
	var all []*nostr.Event
	for i := 0; i < 20; i++ {
		who := a
		if i%2 == 1 {
			who = b
		}
		kind := 9
		if i%3 == 0 {
			kind = 7
		}
		ev := who.event(t, kind, int64(1000+i/2), fmt.Sprint("m", i), nostr.Tag{"h", "general"}, nostr.Tag{"t", fmt.Sprint("t", i%4)})
		all = append(all, ev)
	}
	mustSave(t, s, all...)

	// newest first, ties by id
	got, _ := s.Query(ctx, nostr.Filter{Tags: nostr.TagMap{"h": {"general"}}})
	if len(got) != 20 {
		t.Fatalf("got %d events, want 20", len(got))
	}
	for i := 1; i < len(got); i++ {
		p, c := got[i-1], got[i]
		if p.CreatedAt < c.CreatedAt || (p.CreatedAt == c.CreatedAt && p.ID > c.ID) {
			t.Fatalf("order broken at %d: %d/%s then %d/%s", i, p.CreatedAt, p.ID, c.CreatedAt, c.ID)
		}
	}

	count := func(f nostr.Filter) int {
		n := 0
		for _, ev := range all {
			if f.Matches(ev) {
				n++
			}
		}
		return n
	}
	since, until := nostr.Timestamp(1002), nostr.Timestamp(1006)
	filters := []nostr.Filter{
		{Authors: []string{a.pk}},
		{Authors: []string{a.pk}, Kinds: []int{7}},
		{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"general"}}},
		{Tags: nostr.TagMap{"t": {"t1", "t2"}}},
		{Tags: nostr.TagMap{"t": {"t1"}, "h": {"general"}}, Authors: []string{b.pk}},
		{Since: &since, Until: &until},
		{Tags: nostr.TagMap{"h": {"general"}}, Since: &since, Until: &until, Kinds: []int{9}},
		{IDs: []string{all[3].ID, all[4].ID}},
		{IDs: []string{}},
		{Tags: nostr.TagMap{"t": {}}},
	}
	for _, f := range filters {
		if got, want := len(ids(t, s, f)), count(f); got != want {
			t.Errorf("filter %v: %d events, want %d", f, got, want)
		}
		if n, _ := s.CountEvents(ctx, f); int(n) != count(f) {
			t.Errorf("COUNT %v = %d, want %d", f, n, count(f))
		}
	}
	// limit keeps the newest
	lim := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"h": {"general"}}, Limit: 3})
	if !same(lim, []string{got[0].ID, got[1].ID, got[2].ID}) {
		t.Fatalf("limit 3 = %v, want the 3 newest", lim)
	}
	if lz := ids(t, s, nostr.Filter{LimitZero: true}); len(lz) != 0 {
		t.Fatalf("limit 0 returned %d events", len(lz))
	}
	// OR of several filters, each event counted once
	n, _ := s.CountFilters(ctx, []nostr.Filter{{Authors: []string{a.pk}}, {Kinds: []int{7}}}, nil)
	want := count(nostr.Filter{Authors: []string{a.pk}}) + count(nostr.Filter{Authors: []string{b.pk}, Kinds: []int{7}})
	if int(n) != want {
		t.Fatalf("COUNT of OR-ed filters = %d, want %d", n, want)
	}
}

func TestLimits(t *testing.T) {
	s := open(t, Options{DefaultLimit: 5, MaxLimit: 8})
	a := newSigner(t)
	for i := 0; i < 12; i++ {
		mustSave(t, s, a.event(t, 1, int64(i+1), fmt.Sprint(i)))
	}
	if n := len(ids(t, s, nostr.Filter{})); n != 5 {
		t.Fatalf("no limit gave %d, want default 5", n)
	}
	if n := len(ids(t, s, nostr.Filter{Limit: 100})); n != 8 {
		t.Fatalf("limit 100 gave %d, want the max 8", n)
	}
}

func TestDuplicateAndEphemeral(t *testing.T) {
	s := open(t, Options{})
	a := newSigner(t)
	ev := a.event(t, 1, 10, "hi")
	mustSave(t, s, ev)
	if err := s.SaveEvent(ctx, ev); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second save: %v, want ErrDuplicate", err)
	}
	if err := s.SaveEvent(ctx, a.event(t, 20001, 10, "presence")); err == nil {
		t.Fatal("ephemeral event was stored")
	}
}

func TestReplaceable(t *testing.T) {
	s := open(t, Options{})
	a := newSigner(t)
	p1 := a.event(t, 0, 100, `{"name":"one"}`)
	p2 := a.event(t, 0, 200, `{"name":"two"}`)
	old := a.event(t, 0, 50, `{"name":"old"}`)
	mustSave(t, s, p1, p2)
	if err := s.SaveEvent(ctx, old); err == nil {
		t.Fatal("an older replaceable event replaced a newer one")
	}
	if got := ids(t, s, nostr.Filter{Authors: []string{a.pk}, Kinds: []int{0}}); !same(got, []string{p2.ID}) {
		t.Fatalf("profile = %v, want only the newest", got)
	}
	// addressable: one per d
	r1 := a.event(t, 30078, 100, "x", nostr.Tag{"d", "read-state:a"})
	r2 := a.event(t, 30078, 100, "y", nostr.Tag{"d", "read-state:b"})
	r3 := a.event(t, 30078, 101, "z", nostr.Tag{"d", "read-state:a"})
	mustSave(t, s, r1, r2, r3)
	got := ids(t, s, nostr.Filter{Kinds: []int{30078}})
	if len(got) != 2 || got[0] != r3.ID {
		t.Fatalf("addressable = %v, want r3 and r2", got)
	}
	// same created_at: the lowest id stays
	x := a.event(t, 10002, 500, "x")
	y := a.event(t, 10002, 500, "y")
	lo, hi := x, y
	if hi.ID < lo.ID {
		lo, hi = hi, lo
	}
	mustSave(t, s, hi, lo)
	if got := ids(t, s, nostr.Filter{Kinds: []int{10002}}); !same(got, []string{lo.ID}) {
		t.Fatalf("tie kept %v, want lowest id", got)
	}
	if err := s.SaveEvent(ctx, hi); err == nil {
		t.Fatal("higher id replaced lower id at the same created_at")
	}
}

func TestDeletion(t *testing.T) {
	s := open(t, Options{})
	a, b := newSigner(t), newSigner(t)
	mine := a.event(t, 1, 10, "mine")
	theirs := b.event(t, 1, 10, "theirs")
	addr := a.event(t, 30023, 10, "article", nostr.Tag{"d", "post"})
	mustSave(t, s, mine, theirs, addr)
	del := a.event(t, 5, 20, "", nostr.Tag{"e", mine.ID}, nostr.Tag{"e", theirs.ID}, nostr.Tag{"a", "30023:" + a.pk + ":post"})
	mustSave(t, s, del)
	if got := ids(t, s, nostr.Filter{Kinds: []int{1, 30023}}); !same(got, []string{theirs.ID}) {
		t.Fatalf("after deletion: %v, want only the other author's event", got)
	}
	if err := s.SaveEvent(ctx, mine); err == nil {
		t.Fatal("a deleted event was accepted again")
	}
	newer := a.event(t, 30023, 30, "article v2", nostr.Tag{"d", "post"})
	mustSave(t, s, newer) // newer than the deletion: allowed
}

func TestExpiration(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := open(t, Options{Now: clock})
	a := newSigner(t)
	if err := s.SaveEvent(ctx, a.event(t, 1, 10, "gone", nostr.Tag{"expiration", "999999"})); err == nil {
		t.Fatal("an expired event was stored")
	}
	soon := a.event(t, 1, 10, "soon", nostr.Tag{"expiration", "1000010"})
	mustSave(t, s, soon)
	if got := ids(t, s, nostr.Filter{}); !same(got, []string{soon.ID}) {
		t.Fatalf("before expiry: %v", got)
	}
	mu.Lock()
	now = now.Add(20 * time.Second)
	mu.Unlock()
	if got := ids(t, s, nostr.Filter{}); len(got) != 0 {
		t.Fatalf("expired event still served: %v", got)
	}
	if err := s.SweepExpired(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	s.r.QueryRow("SELECT COUNT(*) FROM events").Scan(&n)
	if n != 0 {
		t.Fatalf("sweep left %d rows", n)
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
