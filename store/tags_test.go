package store_test

import (
	"fmt"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// TestIndexedTagsDistinct: the tag index gets each single-letter (name,
// value) pair once, in first-seen order, for a few tags and for many.
func TestIndexedTagsDistinct(t *testing.T) {
	for _, n := range []int{5, 40, 2500} {
		ev := &nostr.Event{}
		for i := 0; i < n; i++ {
			ev.Tags = append(ev.Tags, nostr.Tag{"e", fmt.Sprint(i % (n / 2))}, nostr.Tag{"expiration", "1"}, nostr.Tag{"p"})
		}
		got := store.IndexedTags(ev)
		if len(got) != n/2 {
			t.Fatalf("%d e tags, %d distinct: %d index rows", n, n/2, len(got))
		}
		for i, k := range got {
			if k != [2]string{"e", fmt.Sprint(i)} {
				t.Fatalf("%d tags: row %d is %v", n, i, k)
			}
		}
	}
}
