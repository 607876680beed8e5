package store

import "github.com/nbd-wtf/go-nostr"

// IndexedTags lists the distinct (name, value) pairs of ev's single-letter
// tags: the rows a log's exact tag index holds for ev.
func IndexedTags(ev *nostr.Event) [][2]string {
	out := make([][2]string, 0, len(ev.Tags))
	for _, tag := range ev.Tags {
		if len(tag) < 2 || len(tag[0]) != 1 {
			continue
		}
		k := [2]string{tag[0], tag[1]}
		dup := false
		for _, o := range out {
			dup = dup || o == k
		}
		if !dup {
			out = append(out, k)
		}
	}
	return out
}
