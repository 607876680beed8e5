package hub

import (
	"context"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/nbd-wtf/go-nostr"
)

// rejectEvent runs before an event is stored or relayed: authorship, the
// attestation's own conditions, and for ephemeral kinds the write rules
// (checkEvent) against the in-memory view.
func (h *Hub) rejectEvent(_ context.Context, c *relay.Conn, ev *nostr.Event) string {
	if ev.PubKey != c.PubKey() {
		return "restricted: the event's pubkey must be the key this connection authenticated as"
	}
	v := h.snapshotView()
	if why := h.standing(c, v); why != "" {
		h.cutOff(c, why)
		return why
	}
	if a, ok := c.Meta().(*identity.Attestation); ok {
		if err := a.Conditions.Check(ev.Kind, int64(ev.CreatedAt)); err != nil {
			return "restricted: your owner's attestation does not cover this event: " + err.Error()
		}
	}
	if kinds.Classify(ev.Kind).Storage != kinds.Ephemeral {
		return "" // stored kinds obey the same rules inside the write transaction
	}
	as, _ := actsAs(v, ev.PubKey, int64(ev.CreatedAt)) // the view never fails
	if err := checkEvent(v, ev, sender{pubkey: ev.PubKey, owner: c.Owner(), as: as}); err != nil {
		return err.Error()
	}
	return ""
}
