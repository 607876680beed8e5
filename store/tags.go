package store

import "github.com/nbd-wtf/go-nostr"

// IndexedTags lists the distinct (name, value) pairs of ev's single-letter
// tags: the rows a log's exact tag index holds for ev.
func IndexedTags(ev *nostr.Event) [][2]string {
	out := make([][2]string, 0, len(ev.Tags))
	var seen map[[2]string]bool // for many tags: a linear scan is quadratic
	if len(ev.Tags) > 32 {
		seen = make(map[[2]string]bool, len(ev.Tags))
	}
	for _, tag := range ev.Tags {
		if len(tag) < 2 || len(tag[0]) != 1 {
			continue
		}
		k := [2]string{tag[0], tag[1]}
		dup := seen[k]
		for i := 0; seen == nil && i < len(out) && !dup; i++ {
			dup = out[i] == k
		}
		if !dup {
			out = append(out, k)
			if seen != nil {
				seen[k] = true
			}
		}
	}
	return out
}
