package hub

import (
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
)

// audience is canRead for one live event and many subscribers: the view,
// the event's gate and its channel are found once, not per subscriber, and
// a member key found to read it is not judged again for the key's other
// connections. Only "reads" is kept: a refusal (which cuts a connection off
// when its standing is gone) and a connection with an attestation of its
// own are judged each time. The returned func is for one goroutine.
func (h *Hub) audience(ev *store.Stored) func(c *relay.Conn) bool {
	v := h.snapshotView()
	gate := kinds.Classify(ev.Kind).Gate
	ch := h.channelGated(ev, gate)
	var readers map[string]struct{}
	return func(c *relay.Conn) bool {
		reader, meta := c.Identity()
		if reader == "" {
			return false
		}
		if _, ok := readers[reader]; ok && meta == nil {
			return true
		}
		if !h.reads(c, v, reader, ev, gate, ch) {
			return false
		}
		if meta == nil {
			if readers == nil {
				readers = map[string]struct{}{}
			}
			readers[reader] = struct{}{}
		}
		return true
	}
}
