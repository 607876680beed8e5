package client

import (
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

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
	c.stamps.Stamp(ev)
}
