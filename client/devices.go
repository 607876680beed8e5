package client

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// DeviceTag marks a kind 0 profile as a paired device's (spec/pairing.md).
var DeviceTag = nostr.Tag{"device"}

// DeviceProfile is a paired device's kind 0 profile: its owner's auth tag
// and the device marker.
func DeviceProfile(name string, authTag nostr.Tag) nostr.Event {
	content, _ := json.Marshal(map[string]any{"name": name, "about": "hive device"})
	return ev(kinds.Profile, string(content), authTag, DeviceTag)
}

// isDevice reports whether a profile carries the device marker.
func isDevice(ev *nostr.Event) bool {
	return slices.ContainsFunc(ev.Tags, func(t nostr.Tag) bool { return len(t) == 1 && t[0] == DeviceTag[0] })
}

// Devices lists the paired devices whose profiles carry an auth tag by the
// client's key, with expiry and revocation state, sorted by name.
func (c *Client) Devices(ctx context.Context, now time.Time) ([]AgentStatus, error) {
	return c.attested(ctx, now, isDevice)
}
