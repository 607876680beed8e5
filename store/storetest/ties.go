package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// limitCutsATie: when a limit falls among events of the same second, the
// ones inside it are those with the lowest ids (newest first, ties by id),
// whether the query is driven by a tag or by the events table, and however
// the events were stored (the log reads them in its own order).
func limitCutsATie(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a := NewSigner(t)
	var tied []*nostr.Event
	for i := 0; i < 8; i++ {
		ev := a.Event(t, 9, 2000, fmt.Sprint("tied ", i), nostr.Tag{"h", "c"})
		tied = append(tied, ev)
	}
	older := a.Event(t, 9, 1999, "older", nostr.Tag{"h", "c"})
	newer := a.Event(t, 9, 2001, "newer", nostr.Tag{"h", "c"})
	mustSave(t, s, append([]*nostr.Event{older, newer}, tied...)...)
	byID := idsOf(tied)
	slices.Sort(byID)
	for _, f := range []nostr.Filter{
		{Tags: nostr.TagMap{"h": {"c"}}},
		{Kinds: []int{9}},
		{Authors: []string{a.PK}},
	} {
		for _, limit := range []int{1, 3, 8, 9, 10} {
			f.Limit = limit
			var want []string
			switch {
			case limit == 1:
				want = []string{newer.ID}
			case limit <= 9:
				want = append([]string{newer.ID}, byID[:limit-1]...)
			default:
				want = append(append([]string{newer.ID}, byID...), older.ID)
			}
			if got := ids(t, s, f); !slices.Equal(got, want) {
				t.Errorf("%v limit %d: got %v, want %v", f, limit, got, want)
			}
		}
	}
}
