package kinds

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// MaxReadIDs bounds the rows a read position names in its second; a
// client that would name more writes the plain position instead.
const MaxReadIDs = 64

// ReadPosition is where a member has read a context up to (spec/channels.md,
// "Read state"): every row before second At, and of the rows of second At
// those IDs names (sorted, distinct), or all of them when IDs is nil (the
// plain position, the content "At"). Rows written in second At after the
// mark are not named, so they stay unread. The zero value is "nothing read".
type ReadPosition struct {
	At  nostr.Timestamp
	IDs []string
}

// ReadAt is the plain position at: every row up to and including second at.
func ReadAt(at nostr.Timestamp) ReadPosition { return ReadPosition{At: at} }

// ReadThrough is the position that reads every row before second at and,
// of second at, the rows ids: sorted and made distinct; more than
// MaxReadIDs give the plain position, none the plain position of the
// second before.
func ReadThrough(at nostr.Timestamp, ids []string) ReadPosition {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	switch {
	case len(ids) > MaxReadIDs:
		return ReadAt(at)
	case len(ids) == 0:
		return ReadAt(max(at-1, 0))
	}
	return ReadPosition{At: at, IDs: ids}
}

// ParseReadPosition reads a read-state event's content: unix seconds as
// plain decimal digits, then optionally, one space apart, the ids of the
// rows read in that second (distinct, at most MaxReadIDs, each 64 lowercase
// hex digits). The error says what is wrong.
func ParseReadPosition(s string) (ReadPosition, error) {
	f := strings.Split(s, " ")
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != f[0] {
		return ReadPosition{}, fmt.Errorf("the position %q does not start with unix seconds as plain decimal digits", clip(s))
	}
	if len(f) == 1 {
		return ReadAt(nostr.Timestamp(n)), nil
	}
	ids := f[1:]
	if len(ids) > MaxReadIDs {
		return ReadPosition{}, fmt.Errorf("the position names %d rows of its second; at most %d (past that, the plain position: the second alone)", len(ids), MaxReadIDs)
	}
	for i, id := range ids {
		if !isEventID(id) {
			return ReadPosition{}, fmt.Errorf("%q in the position is not an event id (64 lowercase hex digits, one space apart)", clip(id))
		}
		if slices.Contains(ids[:i], id) {
			return ReadPosition{}, fmt.Errorf("the position names %s twice", id)
		}
	}
	return ReadThrough(nostr.Timestamp(n), ids), nil
}

func isEventID(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// clip shortens an untrusted value quoted in an error.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// String is the position as a read-state event's content.
func (p ReadPosition) String() string {
	return strings.Join(append([]string{strconv.FormatInt(int64(p.At), 10)}, p.IDs...), " ")
}

// Since is the first second that may hold a row p does not read.
func (p ReadPosition) Since() nostr.Timestamp {
	if p.IDs == nil {
		return p.At + 1
	}
	return p.At
}

// Covers reports whether the row id of second at is read.
func (p ReadPosition) Covers(at nostr.Timestamp, id string) bool {
	return at < p.At || at == p.At && (p.IDs == nil || slices.Contains(p.IDs, id))
}

// Merge is the position that reads what p or q reads (the member's over its
// keys): the later second wins; in one second the rows of both are read, and
// the plain position reads them all.
func (p ReadPosition) Merge(q ReadPosition) ReadPosition {
	switch {
	case p.At != q.At:
		if p.At > q.At {
			return p
		}
		return q
	case p.IDs == nil || q.IDs == nil:
		return ReadAt(p.At)
	}
	return ReadThrough(p.At, append(slices.Clone(p.IDs), q.IDs...))
}

// Equal reports whether p and q read the same rows.
func (p ReadPosition) Equal(q ReadPosition) bool {
	return p.At == q.At && (p.IDs == nil) == (q.IDs == nil) && slices.Equal(p.IDs, q.IDs)
}

// Above reports whether p reads every row q reads and more: the order a
// key's position moves in (the hub refuses any other move).
func (p ReadPosition) Above(q ReadPosition) bool {
	return !p.Equal(q) && p.Merge(q).Equal(p)
}

// Describe says the position in words, for a refusal.
func (p ReadPosition) Describe() string {
	if p.IDs == nil {
		return strconv.FormatInt(int64(p.At), 10)
	}
	rows := "rows"
	if len(p.IDs) == 1 {
		rows = "row"
	}
	return fmt.Sprintf("%d and %d %s of that second", p.At, len(p.IDs), rows)
}

// positionJSON is the JSON form of a position that names rows.
type positionJSON struct {
	At  nostr.Timestamp `json:"at"`
	IDs []string        `json:"ids"`
}

// MarshalJSON is the plain position as a number (unix seconds), any other
// as {"at": seconds, "ids": [...]} (the form spec/fixtures use).
func (p ReadPosition) MarshalJSON() ([]byte, error) {
	if p.IDs == nil {
		return json.Marshal(int64(p.At))
	}
	return json.Marshal(positionJSON{p.At, p.IDs})
}

// UnmarshalJSON reads either form of MarshalJSON (ids in any order).
func (p *ReadPosition) UnmarshalJSON(b []byte) error {
	var n int64
	if json.Unmarshal(b, &n) == nil {
		if n < 0 {
			return fmt.Errorf("read position %d is negative", n)
		}
		*p = ReadAt(nostr.Timestamp(n))
		return nil
	}
	var v positionJSON
	if err := json.Unmarshal(b, &v); err != nil || v.At < 0 || v.IDs == nil {
		return fmt.Errorf("a read position is unix seconds or {\"at\": seconds, \"ids\": [...]}, not %s", b)
	}
	*p = ReadThrough(v.At, v.IDs)
	return nil
}
