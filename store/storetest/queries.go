package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

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
