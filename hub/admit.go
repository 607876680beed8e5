package hub

import (
	"context"
	"errors"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/relay"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// admit lets in hub members, and keys carrying a NIP-OA attestation from a
// member, checked against the AUTH event's created_at and the revocations.
func (h *Hub) admit(_ context.Context, c *relay.Conn, auth *nostr.Event) string {
	v := h.snapshotView()
	pk := auth.PubKey
	if _, ok := v.members[pk]; ok {
		return ""
	}
	npub, _ := nip19.EncodePublicKey(pk)
	tag, err := identity.FindAuthTag(auth)
	if errors.Is(err, identity.ErrNoAuthTag) {
		return "restricted: " + npub + " is not a member of this hub; ask a hub admin to add you, or authenticate with your owner's NIP-OA auth tag"
	}
	if err != nil {
		return "invalid: " + err.Error()
	}
	a, err := identity.VerifyAuthTag(tag, pk)
	if err != nil {
		return "invalid: auth tag: " + err.Error()
	}
	if err := a.Conditions.CheckTime(int64(auth.CreatedAt)); err != nil {
		return "restricted: attestation not valid at this AUTH's created_at: " + err.Error() + "; ask your owner for a fresh one"
	}
	if msg := v.attestationStands(a, pk); msg != "" {
		return msg
	}
	c.SetOwner(a.Owner)
	c.SetMeta(a)
	return ""
}

// attestationStands: an attested key may act only while its owner is a hub
// member and the owner has not revoked the attestation. It returns the
// refusal, or "".
func (v *view) attestationStands(a *identity.Attestation, agent string) string {
	if _, ok := v.members[a.Owner]; !ok {
		return "restricted: the owner who attested this key is not a member of this hub"
	}
	if at, ok := v.revocations[[2]string{a.Owner, agent}]; ok && identity.RevokedBy(a.Conditions, at) {
		return "restricted: this attestation was revoked by its owner; ask for a new one"
	}
	return ""
}
