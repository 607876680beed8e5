package hub

import (
	"context"
	"fmt"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/nbd-wtf/go-nostr"
)

// rejectEvent runs before an event is stored or relayed: authorship, hub-only
// kinds, the attestation's own conditions, and the rules of ephemeral kinds
// (stored kinds are checked again in the write transaction).
func (h *Hub) rejectEvent(_ context.Context, c *relay.Conn, ev *nostr.Event) string {
	if ev.PubKey != c.PubKey() {
		return "restricted: the event's pubkey must be the key this connection authenticated as"
	}
	k := kinds.Classify(ev.Kind)
	if k.HubSigned {
		return fmt.Sprintf("restricted: kind %d is signed by the hub only", ev.Kind)
	}
	v := h.snapshotView()
	if a, ok := c.Meta().(*identity.Attestation); ok {
		if _, member := v.members[a.Owner]; !member {
			return "restricted: your owner is no longer a hub member"
		}
		if at, ok := v.revocations[[2]string{a.Owner, ev.PubKey}]; ok && identity.RevokedBy(a.Conditions, at) {
			return "restricted: your attestation was revoked"
		}
		if err := a.Conditions.Check(ev.Kind, int64(ev.CreatedAt)); err != nil {
			return "restricted: your owner's attestation does not cover this event: " + err.Error()
		}
	}
	if k.Storage != kinds.Ephemeral {
		return ""
	}
	for _, req := range k.RequiredTags {
		if tagValue(ev, req) == "" {
			return fmt.Sprintf("invalid: kind %d needs a %q tag", ev.Kind, req)
		}
	}
	if ch := tagValue(ev, "h"); ch != "" {
		if cv := v.channels[ch]; cv != nil {
			if _, member := cv.members[ev.PubKey]; cv.deleted || !(cv.open() || member) {
				return "restricted: not a member of channel " + ch
			}
		}
	}
	if ev.Kind == kinds.ObserverFrame {
		to := tagValue(ev, "p")
		if c.Owner() != to && v.agents[to] != ev.PubKey {
			return "restricted: observer frames go only between an agent and its owner"
		}
	}
	return ""
}
