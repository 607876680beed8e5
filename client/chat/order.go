package chat

import (
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// MsTag names the tag that carries an event's milliseconds (kinds.MsTag).
const MsTag = kinds.MsTag

// Millis is an event's time in milliseconds: created_at, plus its ms tag
// when that holds a whole number from 0 to 999 (kinds.Millis).
func Millis(ev *nostr.Event) int64 {
	ms, _ := kinds.Millis(ev.Tags)
	return int64(ev.CreatedAt)*1000 + ms
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
