package client

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ainb/hive/identity"
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

// AttestedBy reads a kind 0 profile's NIP-OA auth tag: the member who
// attested the profile's key, and whether as a paired device (the device
// clause), or "" when the profile carries no tag that verifies for its
// author. A chat shows a device's messages as its owner's; revocations
// (kind 30450 by the owner) end what the device may do, not whose it was.
func AttestedBy(profile *nostr.Event) (owner string, device bool) {
	if profile == nil || profile.Kind != kinds.Profile {
		return "", false
	}
	tag, err := identity.FindAuthTag(profile)
	if err != nil {
		return "", false
	}
	a, err := identity.VerifyAuthTag(tag, profile.PubKey)
	if err != nil {
		return "", false
	}
	return a.Owner, a.Device
}

// OwnerOf looks up pk's profile on the hub and returns what AttestedBy
// says of it: the member pk belongs to as an agent or paired device ("" for
// a member, or a key without an attested profile).
func (c *Client) OwnerOf(ctx context.Context, pk string) (owner string, device bool, err error) {
	evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Authors: []string{pk}, Limit: 1})
	if err != nil || len(evs) == 0 {
		return "", false, err
	}
	owner, device = AttestedBy(&evs[0])
	return owner, device, nil
}
