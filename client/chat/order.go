package chat

import (
	"strconv"

	"github.com/nbd-wtf/go-nostr"
)

// MsTag names the tag that carries the milliseconds of an event's
// created_at second ("0" to "999"), which hive's client adds to what it
// signs so that one author's same-second messages keep their send order.
const MsTag = "ms"

// Millis is an event's time in milliseconds: created_at, plus its ms tag
// when that holds a whole number from 0 to 999.
func Millis(ev *nostr.Event) int64 {
	t := int64(ev.CreatedAt) * 1000
	for _, tg := range ev.Tags {
		if len(tg) >= 2 && tg[0] == MsTag && len(tg[1]) <= 3 {
			if n, err := strconv.Atoi(tg[1]); err == nil && n >= 0 && n < 1000 && strconv.Itoa(n) == tg[1] {
				return t + int64(n)
			}
			break
		}
	}
	return t
}

// key is where a row sits in a timeline: its time in milliseconds (moved
// after its parent's when a clock put it before), then its id.
type key struct {
	t  int64
	id string
}

func (a key) less(b key) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	return a.id < b.id
}

// newer reports whether overlay a wins over b (the later one by time, then id).
func newer(a, b key) bool { return b.less(a) }
