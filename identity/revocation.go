package identity

import (
	"errors"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// KindRevocation is hive's owner-signed revocation of an agent attestation
// (addressable: one live revocation per owner and agent, d = agent pubkey).
// NIP-OA itself has no revocation; this is hive's addition.
const KindRevocation = 30450

// ErrBadRevocation is wrapped by every ParseRevocation / NewRevocation error.
var ErrBadRevocation = errors.New("invalid revocation event")

// NewRevocation builds and signs a kind 30450 revocation by owner of the
// agent's attestations: tags ["d", agent] and ["p", agent], content = reason
// (may be empty).
func NewRevocation(owner Keys, agentPub, reason string, createdAt int64) (*nostr.Event, error) {
	if _, err := parseSecretHex(owner.SecretHex); err != nil {
		return nil, fmt.Errorf("%w: owner key: %v", ErrBadRevocation, err)
	}
	if err := checkPubHex(agentPub); err != nil {
		return nil, fmt.Errorf("%w: %w: %v", ErrBadRevocation, ErrBadAgentKey, err)
	}
	if createdAt < 0 {
		return nil, fmt.Errorf("%w: negative created_at %d", ErrBadRevocation, createdAt)
	}
	ev := &nostr.Event{
		Kind:      KindRevocation,
		CreatedAt: nostr.Timestamp(createdAt),
		Tags:      nostr.Tags{{"d", agentPub}, {"p", agentPub}},
		Content:   reason,
	}
	if err := ev.Sign(owner.SecretHex); err != nil {
		return nil, fmt.Errorf("%w: signing: %v", ErrBadRevocation, err)
	}
	if ev.PubKey == agentPub {
		return nil, fmt.Errorf("%w: %w: an owner cannot revoke its own key", ErrBadRevocation, ErrSelfAttestation)
	}
	return ev, nil
}

// ParseRevocation checks a revocation event and returns who revoked whom and
// when. Rules: kind 30450; valid id and signature; exactly one "d" tag whose
// value is the agent pubkey (64 lowercase hex, valid key, not the owner);
// every "p" tag, if any, names the same agent. The content is free text.
func ParseRevocation(ev *nostr.Event) (owner, agent string, at int64, err error) {
	if ev == nil {
		return "", "", 0, fmt.Errorf("%w: nil event", ErrBadRevocation)
	}
	if ev.Kind != KindRevocation {
		return "", "", 0, fmt.Errorf("%w: kind %d, want %d", ErrBadRevocation, ev.Kind, KindRevocation)
	}
	if !ev.CheckID() {
		return "", "", 0, fmt.Errorf("%w: %w: id does not match the event content", ErrBadRevocation, ErrInvalidEvent)
	}
	if ok, serr := ev.CheckSignature(); !ok {
		if serr == nil {
			serr = errors.New("signature does not verify")
		}
		return "", "", 0, fmt.Errorf("%w: %w: %v", ErrBadRevocation, ErrInvalidEvent, serr)
	}
	nd := 0
	for _, t := range ev.Tags {
		if len(t) >= 1 && t[0] == "d" {
			nd++
			if len(t) >= 2 {
				agent = t[1]
			}
		}
	}
	if nd != 1 {
		return "", "", 0, fmt.Errorf("%w: want exactly one d tag holding the agent pubkey, got %d", ErrBadRevocation, nd)
	}
	if err := checkPubHex(agent); err != nil {
		return "", "", 0, fmt.Errorf("%w: d tag: %v", ErrBadRevocation, err)
	}
	for _, t := range ev.Tags {
		if len(t) >= 1 && t[0] == "p" && (len(t) < 2 || t[1] != agent) {
			return "", "", 0, fmt.Errorf("%w: p tag does not match the d tag agent %s", ErrBadRevocation, agent)
		}
	}
	if ev.PubKey == agent {
		return "", "", 0, fmt.Errorf("%w: %w: the owner revokes itself", ErrBadRevocation, ErrSelfAttestation)
	}
	return ev.PubKey, agent, int64(ev.CreatedAt), nil
}

// RevokedBy reports whether an attestation with these conditions is dead
// given a revocation (same owner, same agent) created at revokedAt.
//
// The attestation survives only if it carries a created_at>T bound with
// T >= revokedAt; it is dead when revokedAt > T, and dead when it has no
// created_at> bound at all. A surviving attestation only authorises events
// created strictly after T, hence strictly after the revocation, so a tag
// issued before the revocation cannot come back.
//
// The hive CLI writes created_at>(issue time - 1), i.e. "valid from the
// issue second on". Such a tag survives a revocation exactly when it was
// issued in a later second than the revocation; re-attesting in the same
// second as the revocation gives a dead tag (wait a second and re-attest).
//
// Caveat: a tag issued before the revocation with a created_at> bound at or
// after the revocation survives it; revoke again after that bound.
func RevokedBy(conds Conditions, revokedAt int64) bool {
	nb, ok := conds.NotBefore()
	return !ok || revokedAt > nb
}
