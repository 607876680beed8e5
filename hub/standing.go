package hub

import (
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/relay"
)

// standing says why an authenticated connection may no longer act, or "":
// its key is no longer a member, or the attestation it was admitted with
// no longer stands (revoked, its owner removed) or no longer holds by the
// hub's clock. Reads and writes check it, so a connection the kick has not
// closed yet (or a kick missed) gets nothing.
func (h *Hub) standing(c *relay.Conn, v *view) string {
	pk := c.PubKey()
	if a, ok := c.Meta().(*identity.Attestation); ok {
		if msg := v.attestationStands(a, pk); msg != "" {
			return msg
		}
		return h.attestationNow(a)
	}
	if _, ok := v.members[pk]; !ok {
		return "restricted: removed from the hub"
	}
	return ""
}

// cutOff closes a connection whose standing is gone; it never blocks (it
// runs on the fan-out's hot path).
func (h *Hub) cutOff(c *relay.Conn, why string) {
	if c.Context().Err() == nil {
		h.kicks.add(kick{conn: c, reason: why, msg: "connection cut off", attrs: []any{"pubkey", c.PubKey(), "reason", why}})
	}
}
