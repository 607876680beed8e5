package kinds

import (
	"strconv"

	"github.com/nbd-wtf/go-nostr"
)

// MsTag names the tag that carries the milliseconds of an event's
// created_at second ("0" to "999"), which hive's client adds to what it
// signs so that one author's same-second messages keep their send order
// (spec/chat.md, "Order").
const MsTag = "ms"

// Millis is the value of the event's first ms tag of at most three
// characters when it is a whole number from 0 to 999 spelled without sign
// or leading zero; ok is false otherwise (any other value counts as 0). The
// JS model (web/src/model) reads it the same way.
func Millis(tags nostr.Tags) (ms int64, ok bool) {
	for _, tg := range tags {
		if len(tg) >= 2 && tg[0] == MsTag && len(tg[1]) <= 3 {
			n, err := strconv.Atoi(tg[1])
			if err != nil || n < 0 || strconv.Itoa(n) != tg[1] {
				return 0, false
			}
			return int64(n), true
		}
	}
	return 0, false
}
