package client

import (
	"strconv"
	"sync"
	"time"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// stamper hands out event times in milliseconds that never repeat or go
// back within one client, so one author's messages keep their send order
// (spec/chat.md).
type stamper struct {
	mu   sync.Mutex
	last int64
}

func (s *stamper) next(now time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := now.UnixMilli()
	if ms <= s.last {
		ms = s.last + 1
	}
	s.last = ms
	return ms
}

// stamped reports whether events of kind n carry the ms tag: the rows and
// overlays a timeline orders.
func stamped(n int) bool {
	p := kinds.Classify(n).Partition
	return p == kinds.Content || p == kinds.AuxOverlay
}

// stamp sets ev's created_at to now, with the ms tag for a timeline kind.
func (c *Client) stamp(ev *nostr.Event) {
	if !stamped(ev.Kind) || ev.Tags.Find(chat.MsTag) != nil {
		ev.CreatedAt = nostr.Now()
		return
	}
	ms := c.stamps.next(time.Now())
	ev.CreatedAt = nostr.Timestamp(ms / 1000)
	ev.Tags = append(ev.Tags, nostr.Tag{chat.MsTag, strconv.FormatInt(ms%1000, 10)})
}
