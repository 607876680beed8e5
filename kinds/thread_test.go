package kinds

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// ThreadRoot prefers the root-marked e tag, ReplyTo the reply-marked one,
// wherever it stands; each falls back on the other marker, and then on the
// message itself (ThreadRoot) or "" (ReplyTo). Unmarked e tags do not count.
func TestThreadRootAndReplyTo(t *testing.T) {
	e := func(id, marker string) nostr.Tag { return nostr.Tag{"e", id, "", marker} }
	for _, tc := range []struct {
		name        string
		tags        nostr.Tags
		root, reply string
	}{
		{"top level", nil, "self", ""},
		{"unmarked e", nostr.Tags{{"e", "x"}, {"e", "y", "", ""}}, "self", ""},
		{"root only", nostr.Tags{e("r", "root")}, "r", "r"},
		{"reply only", nostr.Tags{e("p", "reply")}, "p", "p"},
		{"root then reply", nostr.Tags{e("r", "root"), e("p", "reply")}, "r", "p"},
		{"reply then root", nostr.Tags{e("p", "reply"), e("r", "root")}, "r", "p"},
	} {
		ev := &nostr.Event{ID: "self", Tags: tc.tags}
		if got := ThreadRoot(ev); got != tc.root {
			t.Errorf("%s: ThreadRoot %q, want %q", tc.name, got, tc.root)
		}
		if got := ReplyTo(ev); got != tc.reply {
			t.Errorf("%s: ReplyTo %q, want %q", tc.name, got, tc.reply)
		}
	}
}
