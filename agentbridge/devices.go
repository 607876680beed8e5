package agentbridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// controller returns the conversation key for a control frame's author: the
// owner, or a paired device of the owner whose attestation stands now. The
// hub already refuses frames from anyone else; this is the bridge's own check.
func (r *runner) controller(ctx context.Context, h HubConn, pk string) ([32]byte, error) {
	if pk == r.owner {
		return r.ownerKey, nil
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := LiveDevice(qctx, h, r.owner, pk, time.Now()); err != nil {
		return [32]byte{}, err
	}
	return nip44.GenerateConversationKey(pk, r.keys.SecretHex)
}

// LiveDevice checks on the hub that pk is a paired device of owner whose
// attestation stands at now (DeviceOwner, for this owner).
func LiveDevice(ctx context.Context, h HubConn, owner, pk string, now time.Time) error {
	o, err := DeviceOwner(ctx, h, pk, now)
	if err != nil {
		return err
	}
	if o != owner {
		return errors.New("a paired device of another owner")
	}
	return nil
}

// DeviceOwner checks on the hub that pk is a paired device whose attestation
// stands at now, and returns its owner: pk's newest kind 0 profile carries an
// auth tag that verifies for pk, holds the device clause (which only the
// owner signs: a ["device"] tag on the profile proves nothing) and whose
// time clauses hold, and the owner has not revoked it (kind 30450).
func DeviceOwner(ctx context.Context, h HubConn, pk string, now time.Time) (string, error) {
	profiles, err := h.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Authors: []string{pk}, Limit: 1})
	if err != nil {
		return "", fmt.Errorf("looking up the sender's profile: %w", err)
	}
	if len(profiles) == 0 {
		return "", errors.New("neither the owner nor a paired device (no profile)")
	}
	p := profiles[0]
	tag, err := identity.FindAuthTag(p)
	if err != nil {
		return "", fmt.Errorf("device profile: %w", err)
	}
	a, err := identity.VerifyAuthTag(tag, pk)
	if err != nil {
		return "", fmt.Errorf("device profile: %w", err)
	}
	if !a.Device {
		return "", fmt.Errorf("neither the owner nor a paired device (an agent: its attestation has no device clause %s)", identity.DeviceClause)
	}
	if err := a.Conditions.CheckTime(now.Unix()); err != nil {
		return "", fmt.Errorf("the device's attestation does not hold now: %w", err)
	}
	revs, err := h.Query(ctx, nostr.Filter{Kinds: []int{kinds.AgentRevocation}, Authors: []string{a.Owner}, Tags: nostr.TagMap{"d": {pk}}})
	if err != nil {
		return "", fmt.Errorf("looking up revocations: %w", err)
	}
	for _, ev := range revs {
		if _, dev, at, err := identity.ParseRevocation(ev); err == nil && dev == pk && identity.RevokedBy(a.Conditions, at) {
			return "", errors.New("the owner revoked this device")
		}
	}
	return a.Owner, nil
}
