// Package storetest is the behaviour every event-log backend must show,
// written once as a suite that takes a backend constructor. The SQLite and
// PostgreSQL logs both run it.
package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Store is what the suite exercises.
type Store interface {
	SaveEvent(ctx context.Context, ev *nostr.Event) error
	Publish(ctx context.Context, ev *nostr.Event) ([]*nostr.Event, error)
	PublishAsync(ctx context.Context, ev *nostr.Event, done func([]*nostr.Event, error)) error
	DeleteEvent(ctx context.Context, ev *nostr.Event) error
	Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error)
	QueryRaw(ctx context.Context, f nostr.Filter, scope *store.Scope) ([]store.Stored, error)
	CountEvents(ctx context.Context, f nostr.Filter) (int64, error)
	CountFilters(ctx context.Context, filters []nostr.Filter, scope *store.Scope) (int64, error)
	Unreadable(ctx context.Context, ids []string, scope *store.Scope) (string, error)
	SweepExpired(ctx context.Context) error
	Limits() (def, max int)
	Close()
}

// Options are the settings the suite varies; zero values take the backend's
// defaults.
type Options struct {
	DefaultLimit, MaxLimit int
	Now                    func() time.Time
}

// New makes a fresh, empty log for t and returns a function that opens it;
// every call opens the same log (after the previous one was closed), and the
// suite closes what it opens.
type New func(t testing.TB, o Options) (open func() Store)

// Run runs the suite against a backend.
func Run(t *testing.T, newStore New) {
	tests := []struct {
		name string
		fn   func(*testing.T, New)
	}{
		{"TagMatchingIsExact", tagMatchingIsExact},
		{"FilterSemantics", filterSemantics},
		{"Limits", limits},
		{"DuplicateAndEphemeral", duplicateAndEphemeral},
		{"Replaceable", replaceable},
		{"Deletion", deletion},
		{"DeletionByAddressIsStrict", deletionByAddressIsStrict},
		{"DeletionOfManyEvents", deletionOfMany},
		{"Expiration", expiration},
		{"ConcurrentWritesPersist", concurrentWritesPersist},
		{"AsyncOKOnlyAfterCommit", asyncOKOnlyAfterCommit},
		{"ScopeHidesChannelsAndOthersAuthorOnly", scopeHides},
		{"RecipientOnly", recipientOnly},
		{"Unreadable", unreadable},
		{"DeleteEvent", deleteEvent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore) })
	}
}

var ctx = context.Background()

func open(t testing.TB, newStore New, o Options) Store {
	t.Helper()
	s := newStore(t, o)()
	t.Cleanup(s.Close)
	return s
}

// Signer signs test events.
type Signer struct{ SK, PK string }

// NewSigner makes a fresh key.
func NewSigner(t testing.TB) Signer {
	sk := nostr.GeneratePrivateKey()
	pk, err := nostr.GetPublicKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	return Signer{sk, pk}
}

// Event signs an event.
func (s Signer) Event(t testing.TB, kind int, at int64, content string, tags ...nostr.Tag) *nostr.Event {
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content, Tags: nostr.Tags(tags)}
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	if err := ev.Sign(s.SK); err != nil {
		t.Fatal(err)
	}
	return ev
}

func mustSave(t testing.TB, s Store, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := s.SaveEvent(ctx, ev); err != nil {
			t.Fatalf("save kind %d: %v", ev.Kind, err)
		}
	}
}

func ids(t testing.TB, s Store, f nostr.Filter) []string {
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

func idsOf(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	slices.Sort(out)
	return out
}

func tagMatchingIsExact(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a := NewSigner(t)
	x := NewSigner(t).PK
	onlyInE := a.Event(t, 1, 100, "x only inside an e tag", nostr.Tag{"e", x})
	inP := a.Event(t, 1, 101, "x in a p tag", nostr.Tag{"p", x})
	prefix := a.Event(t, 1, 102, "prefix of x in a p tag", nostr.Tag{"p", x[:32]})
	longer := a.Event(t, 1, 103, "x plus suffix", nostr.Tag{"p", x + "00"})
	upper := a.Event(t, 1, 104, "x in capitals", nostr.Tag{"p", fmt.Sprintf("%X", x)})
	mustSave(t, s, onlyInE, inP, prefix, longer, upper)

	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"p": {x}}}); !slices.Equal(got, []string{inP.ID}) {
		t.Fatalf("#p:[x] = %v, want only %s", got, inP.ID)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"e": {x}}}); !slices.Equal(got, []string{onlyInE.ID}) {
		t.Fatalf("#e:[x] = %v, want only %s", got, onlyInE.ID)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"p": {x[:32]}}}); !slices.Equal(got, []string{prefix.ID}) {
		t.Fatalf("#p:[prefix] = %v, want only the event tagged with the prefix", got)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"q": {x}}}); len(got) != 0 {
		t.Fatalf("#q matched %v", got)
	}
	if got := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"p": {x, "unknown"}, "e": {x}}}); len(got) != 0 {
		t.Fatalf("#p and #e together matched %v, want nothing (no event has both)", got)
	}
}

func filterSemantics(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a, b := NewSigner(t), NewSigner(t)
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
		ev := who.Event(t, kind, int64(1000+i/2), fmt.Sprint("m", i), nostr.Tag{"h", "general"}, nostr.Tag{"t", fmt.Sprint("t", i%4)})
		all = append(all, ev)
	}
	mustSave(t, s, all...)

	got, _ := s.Query(ctx, nostr.Filter{Tags: nostr.TagMap{"h": {"general"}}})
	if len(got) != 20 {
		t.Fatalf("got %d events, want 20", len(got))
	}
	for i := 1; i < len(got); i++ { // newest first, ties by id
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
		{Authors: []string{a.PK}},
		{Authors: []string{a.PK}, Kinds: []int{7}},
		{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"general"}}},
		{Tags: nostr.TagMap{"t": {"t1", "t2"}}},
		{Tags: nostr.TagMap{"t": {"t1"}, "h": {"general"}}, Authors: []string{b.PK}},
		{Since: &since, Until: &until},
		{Tags: nostr.TagMap{"h": {"general"}}, Since: &since, Until: &until, Kinds: []int{9}},
		{IDs: []string{all[3].ID, all[4].ID}},
		{IDs: []string{}},
		{Authors: []string{}},
		{Kinds: []int{}},
		{Tags: nostr.TagMap{"t": {}}},
	}
	for _, f := range filters {
		if got, want := len(ids(t, s, f)), count(f); got != want {
			t.Errorf("filter %v: %d events, want %d", f, got, want)
		}
		if n, err := s.CountEvents(ctx, f); err != nil || int(n) != count(f) {
			t.Errorf("COUNT %v = %d (%v), want %d", f, n, err, count(f))
		}
	}
	lim := ids(t, s, nostr.Filter{Tags: nostr.TagMap{"h": {"general"}}, Limit: 3})
	if !slices.Equal(lim, []string{got[0].ID, got[1].ID, got[2].ID}) {
		t.Fatalf("limit 3 = %v, want the 3 newest", lim)
	}
	if lz := ids(t, s, nostr.Filter{LimitZero: true}); len(lz) != 0 {
		t.Fatalf("limit 0 returned %d events", len(lz))
	}
	n, _ := s.CountFilters(ctx, []nostr.Filter{{Authors: []string{a.PK}}, {Kinds: []int{7}}}, nil)
	want := count(nostr.Filter{Authors: []string{a.PK}}) + count(nostr.Filter{Authors: []string{b.PK}, Kinds: []int{7}})
	if int(n) != want {
		t.Fatalf("COUNT of OR-ed filters = %d, want %d (each event once)", n, want)
	}
}

func limits(t *testing.T, newStore New) {
	s := open(t, newStore, Options{DefaultLimit: 5, MaxLimit: 8})
	if def, max := s.Limits(); def != 5 || max != 8 {
		t.Fatalf("Limits() = %d, %d; want 5, 8", def, max)
	}
	a := NewSigner(t)
	for i := 0; i < 12; i++ {
		mustSave(t, s, a.Event(t, 1, int64(i+1), fmt.Sprint(i)))
	}
	if n := len(ids(t, s, nostr.Filter{})); n != 5 {
		t.Fatalf("no limit gave %d, want default 5", n)
	}
	if n := len(ids(t, s, nostr.Filter{Limit: 100})); n != 8 {
		t.Fatalf("limit 100 gave %d, want the max 8", n)
	}
}

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

// scopeLog stores one event of each way an event is tied to a channel, in
// channel "vault", and the same in "lobby", plus events tied to none.
func scopeLog(t *testing.T, s Store) (vault, lobby, free []*nostr.Event, reader Signer) {
	a, reader := NewSigner(t), NewSigner(t)
	at := int64(1_700_000_000)
	for _, ch := range []string{"vault", "lobby"} {
		msg := a.Event(t, 9, at, "hi", nostr.Tag{"h", ch})
		at++
		evs := []*nostr.Event{
			msg,
			a.Event(t, 1, at, "note with h", nostr.Tag{"h", ch}),
			a.Event(t, 39000, at+1, "", nostr.Tag{"d", ch}),
			a.Event(t, 7, at+2, "+", nostr.Tag{"e", msg.ID}),
			// reader's deletion of a's message: stored, deletes nothing
			reader.Event(t, 5, at+3, "", nostr.Tag{"e", "00"}, nostr.Tag{"e", msg.ID}),
		}
		at += 10
		mustSave(t, s, evs...)
		if ch == "vault" {
			vault = evs
		} else {
			lobby = evs
		}
	}
	free = []*nostr.Event{
		a.Event(t, 1, at, "no channel"),
		a.Event(t, 30078, at+1, "a's read state", nostr.Tag{"d", "rs"}),
		reader.Event(t, 30078, at+2, "reader's read state", nostr.Tag{"d", "rs"}),
	}
	mustSave(t, s, free...)
	return vault, lobby, free, reader
}

func events(found []store.Stored) []*nostr.Event {
	out := make([]*nostr.Event, len(found))
	for i, st := range found {
		out[i] = st.Event
	}
	return out
}

func scopeHides(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	vault, lobby, free, reader := scopeLog(t, s)
	sc := &store.Scope{Reader: reader.PK, Hidden: []string{"vault", "elsewhere"}, AuthorOnly: []int{30078}, RecipientOnly: []int{24200}}
	want := idsOf(append(append([]*nostr.Event{}, lobby...), free[0], free[2]))
	got, err := s.QueryRaw(ctx, nostr.Filter{}, sc)
	if err != nil {
		t.Fatal(err)
	}
	if g := idsOf(events(got)); !slices.Equal(g, want) {
		t.Fatalf("scoped query returned %d events, want %d", len(g), len(want))
	}
	for _, st := range got {
		if raw, _ := st.Event.MarshalJSON(); string(raw) != string(st.Raw) {
			t.Fatalf("stored JSON differs from the event's canonical JSON: %s", st.Raw)
		}
	}
	n, err := s.CountFilters(ctx, []nostr.Filter{{}, {Kinds: []int{9}}}, sc)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("scoped COUNT = %d, %v; want %d", n, err, len(want))
	}
	// many hidden channels (a backend may pass a long list differently): same answer
	many := []string{"vault"}
	for i := 0; i < 100; i++ {
		many = append(many, fmt.Sprint("other-", i))
	}
	if n, err := s.CountFilters(ctx, []nostr.Filter{{}}, &store.Scope{Reader: sc.Reader, Hidden: many, AuthorOnly: sc.AuthorOnly}); err != nil || n != int64(len(want)) {
		t.Fatalf("scoped COUNT with %d hidden channels = %d, %v; want %d", len(many), n, err, len(want))
	}
	// every way of belonging to vault is hidden, each looked up on its own
	for _, ev := range vault {
		if got, _ := s.QueryRaw(ctx, nostr.Filter{IDs: []string{ev.ID}}, sc); len(got) != 0 {
			t.Errorf("kind %d of the hidden channel was served", ev.Kind)
		}
	}
	// limit counts readable rows: the newest readable event comes first
	// whatever unreadable ones are newer.
	if got, _ := s.QueryRaw(ctx, nostr.Filter{Kinds: []int{9, 1, 39000, 7, 5}, Limit: 1}, &store.Scope{Reader: reader.PK, Hidden: []string{"lobby"}}); len(got) != 1 || got[0].Event.ID != free[0].ID {
		t.Fatalf("limit 1 with lobby hidden: %v", got)
	}
	if got, _ := s.QueryRaw(ctx, nostr.Filter{Tags: nostr.TagMap{"h": {"vault"}}}, sc); len(got) != 0 {
		t.Fatalf("#h of the hidden channel returned %d events", len(got))
	}
}

func recipientOnly(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a, b, c := NewSigner(t), NewSigner(t), NewSigner(t)
	frame := a.Event(t, 4, 100, "to b", nostr.Tag{"p", b.PK})
	note := a.Event(t, 1, 101, "public")
	mustSave(t, s, frame, note)
	for _, tc := range []struct {
		who  Signer
		want []string
	}{{a, idsOf([]*nostr.Event{frame, note})}, {b, idsOf([]*nostr.Event{frame, note})}, {c, []string{note.ID}}} {
		got, err := s.QueryRaw(ctx, nostr.Filter{}, &store.Scope{Reader: tc.who.PK, RecipientOnly: []int{4}})
		if err != nil {
			t.Fatal(err)
		}
		if g := idsOf(events(got)); !slices.Equal(g, tc.want) {
			t.Errorf("reader %s sees %v, want %v", tc.who.PK[:8], g, tc.want)
		}
	}
}

func unreadable(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	vault, lobby, _, reader := scopeLog(t, s)
	sc := &store.Scope{Reader: reader.PK, Hidden: []string{"vault"}}
	if id, err := s.Unreadable(ctx, []string{lobby[0].ID, vault[0].ID, "ff"}, sc); err != nil || id != vault[0].ID {
		t.Fatalf("Unreadable = %q, %v; want the vault message", id, err)
	}
	if id, err := s.Unreadable(ctx, []string{lobby[0].ID, "ff"}, sc); err != nil || id != "" {
		t.Fatalf("Unreadable of readable and unknown ids = %q, %v; want none", id, err)
	}
	if id, _ := s.Unreadable(ctx, []string{vault[0].ID}, nil); id != "" {
		t.Fatalf("no scope: %q unreadable", id)
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
