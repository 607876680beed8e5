package kinds

import (
	"strconv"
	"sync"
	"time"

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

// Stamper hands out event times in unix milliseconds that never repeat or
// go back, so that what one signer dates keeps the order it was dated in
// (spec/chat.md, "Order"). The zero Stamper is ready; it is safe for
// concurrent use.
type Stamper struct {
	mu   sync.Mutex
	last int64
}

// Next is now in unix milliseconds, or one past the last it handed out
// when that is not earlier.
func (s *Stamper) Next(now time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = max(now.UnixMilli(), s.last+1)
	return s.last
}

// Stamp dates ev now (Next): created_at its second and an ms tag with the
// rest.
func (s *Stamper) Stamp(ev *nostr.Event) {
	ms := s.Next(time.Now())
	ev.CreatedAt = nostr.Timestamp(ms / 1000)
	ev.Tags = append(ev.Tags, nostr.Tag{MsTag, strconv.FormatInt(ms%1000, 10)})
}

// Timed reports whether the events of kind n carry the ms tag: the rows
// and overlays a timeline orders, and the channel changes (create, join,
// add, leave, ...) whose system rows sit among them, so that "alice
// created the channel" and "bob joined" of one second keep their order.
func Timed(n int) bool {
	k := Classify(n)
	if k.Partition == Content || k.Partition == AuxOverlay {
		return true
	}
	return k.Storage == Regular && k.Gate == ChannelMembers && k.Effect == Lasting
}

// AtMillis is an event's time in unix milliseconds: its created_at and its
// ms tag, the order a timeline and a run's records follow.
func AtMillis(ev *nostr.Event) int64 {
	ms, _ := Millis(ev.Tags)
	return int64(ev.CreatedAt)*1000 + ms
}
