package relay

import "github.com/nbd-wtf/go-nostr"

// liveFilter is a REQ filter as an open subscription keeps it, to match live
// events: nostr.Filter.Matches's test, with the tag conditions in a slice
// instead of a map (a map of one entry costs about 400 bytes, per open REQ).
type liveFilter struct {
	nostr.Filter // Tags nil
	tags         []tagCond
}

// tagCond asks for a tag named name with one of values.
type tagCond struct {
	name   string
	values []string
}

func newLiveFilter(f nostr.Filter) liveFilter {
	lf := liveFilter{Filter: f}
	lf.Tags = nil
	if len(f.Tags) > 0 {
		lf.tags = make([]tagCond, 0, len(f.Tags))
	}
	for name, vs := range f.Tags {
		if vs != nil { // as Matches: a nil list asks for nothing
			lf.tags = append(lf.tags, tagCond{name, vs})
		}
	}
	return lf
}

// matches is f.Matches(ev) for the filter f was made from.
func (f *liveFilter) matches(ev *nostr.Event) bool {
	if !f.Filter.Matches(ev) {
		return false
	}
	for _, t := range f.tags {
		if !ev.Tags.ContainsAny(t.name, t.values) {
			return false
		}
	}
	return true
}
