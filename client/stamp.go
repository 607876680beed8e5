package client

import (
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// stamp sets ev's created_at to now, with the ms tag for a timed kind
// (kinds.Timed) and a run request: two requests of one second with the
// same inputs are two runs (the ms tag makes them two events; the run's
// card takes it).
func (c *Client) stamp(ev *nostr.Event) {
	if !kinds.Timed(ev.Kind) && ev.Kind != kinds.RunRequest || ev.Tags.Find(chat.MsTag) != nil {
		ev.CreatedAt = nostr.Now()
		return
	}
	c.stamps.Stamp(ev)
}
