package hub

import (
	"strings"
	"testing"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/spec"
	"github.com/nbd-wtf/go-nostr"
)

// A key's read position moves only up the order of kinds.ReadPosition: to
// a later second, or, in its second, to more of that second's rows (the
// plain position reads them all); anything else is refused with the reason,
// and so is a content that is no position.
func TestReadStateNeverBackwards(t *testing.T) {
	for _, said := range []string{"it never moves backwards", "already at N and K rows of that second", "invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): "} {
		if !strings.Contains(spec.Flat(t, "channels.md"), said) {
			t.Errorf("spec/channels.md does not say %q", said)
		}
	}
	a, b, c := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	h := worldHub(t)
	created := nostr.Now()
	steps := []struct{ content, want string }{
		{"1700000010 " + b, ""},
		{"1700000010 " + b, "duplicate: your read position of general is already at 1700000010 and 1 row of that second; it never moves backwards"},
		{"1700000010 " + a, "duplicate: your read position of general is already at 1700000010 and 1 row of that second; it never moves backwards"},
		{"1700000009", "duplicate: your read position of general is already at 1700000010 and 1 row of that second; it never moves backwards"},
		{"1700000010 " + c + " " + b, ""}, // more rows of the second, in any order
		{"1700000010 " + a + " " + b, "duplicate: your read position of general is already at 1700000010 and 2 rows of that second; it never moves backwards"},
		{"1700000010", ""}, // the plain position reads the whole second
		{"1700000010 " + a + " " + b + " " + c, "duplicate: your read position of general is already at 1700000010; it never moves backwards"},
		{"1700000011 " + a, ""},
		{"1700000011", ""},
		{"1700000011", "duplicate: your read position of general is already at 1700000011; it never moves backwards"},
		{"", `invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): the position "" does not start with unix seconds as plain decimal digits`},
		{"01700000012", `invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): the position "01700000012" does not start with unix seconds as plain decimal digits`},
		{"1700000012 ", `invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): "" in the position is not an event id (64 lowercase hex digits, one space apart)`},
		{"1700000012  " + a, `invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): "" in the position is not an event id (64 lowercase hex digits, one space apart)`},
		{"1700000012 " + strings.ToUpper(a), `invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): "` + strings.ToUpper(a) + `" in the position is not an event id (64 lowercase hex digits, one space apart)`},
		{"1700000012 " + a + " " + a, "invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): the position names " + a + " twice"},
		{"1700000012" + strings.Repeat(" "+a, kinds.MaxReadIDs+1), "invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): the position names 65 rows of its second; at most 64 (past that, the plain position: the second alone)"},
	}
	for i, st := range steps {
		ev := signAs(nil, "alice", kinds.ReadState, st.content, T{"d", kinds.ReadStatePrefix + "general"})
		ev.CreatedAt = created + nostr.Timestamp(i) // each a newer replacement
		if err := ev.Sign(world.keys["alice"].SecretHex); err != nil {
			t.Fatal(err)
		}
		if got := publish(h, ev); got != st.want {
			t.Fatalf("step %d (%.40q): got %q, want %q", i, st.content, got, orOK(st.want))
		}
	}
}
