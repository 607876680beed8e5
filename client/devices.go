package client

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// DeviceTag labels a kind 0 profile as a paired device's for display
// (spec/pairing.md). It proves nothing: what makes a key a device is the
// device clause in its owner's attestation (identity.DeviceClause).
var DeviceTag = nostr.Tag{"device"}

// DeviceProfile is a paired device's kind 0 profile: its owner's auth tag
// (a device attestation) and the device label.
func DeviceProfile(name string, authTag nostr.Tag) nostr.Event {
	content, _ := json.Marshal(map[string]any{"name": name, "about": "hive device"})
	return ev(kinds.Profile, string(content), authTag, DeviceTag)
}

// Devices lists the paired devices whose profiles carry a device
// attestation by the client's key, with expiry and revocation state, sorted
// by name.
func (c *Client) Devices(ctx context.Context, now time.Time) ([]AgentStatus, error) {
	return c.attested(ctx, now, true)
}
