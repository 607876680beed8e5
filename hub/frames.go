package hub

import (
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// checkObserverFrame: kind 24200 goes between an agent and its owner, either
// way, and between an agent and a paired device of the same owner, either
// way, while the device's attestation stands. A device can thus watch the
// owner's agents and send them control frames; an agent cannot reach its
// sibling agents, and nobody reaches another owner's agents.
func checkObserverFrame(s state, ev *nostr.Event, from sender, to string) error {
	if from.owner == to {
		return nil // an attested key to its owner
	}
	rcpt, err := s.attested(to)
	if err != nil {
		return err
	}
	if rcpt.owner != "" && rcpt.owner == ev.PubKey {
		return nil // an owner to one of its agents or devices
	}
	if from.owner == "" || rcpt.owner != from.owner {
		return reject("restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	}
	me, err := s.attested(ev.PubKey)
	if err != nil {
		return err
	}
	at := int64(ev.CreatedAt)
	switch {
	case me.device && rcpt.device:
		return reject("restricted: observer frames do not go from one device to another")
	case me.device:
		if me.owner != from.owner {
			return reject("restricted: this device's profile names another owner than its attestation")
		}
		if why := me.deadAt(at); why != "" {
			return reject("restricted: this device's attestation on its profile does not stand (%s); pair it again", why)
		}
		return nil
	case rcpt.device:
		if why := rcpt.deadAt(at); why != "" {
			return reject("restricted: the owner's device %s is no longer attested (%s)", to, why)
		}
		return nil
	}
	return reject("restricted: observer frames do not go between two agents; a key attested by the owner reaches the owner's agents only as a paired device (enrolled with hive pair: its attestation carries the device clause %s)", identity.DeviceClause)
}
