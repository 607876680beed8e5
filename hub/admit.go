package hub

import (
	"context"
	"errors"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// admit lets in hub members, and keys carrying a NIP-OA attestation from a
// member, checked against the AUTH event's created_at, the hub's clock and
// the revocations.
//
// The relay has already given the connection its key; admit records the
// owner on it too before it reads the view, so a cut-off committing
// meanwhile is seen either here (in the view) or by its kick (which matches
// connections by key and owner after publishing the view).
func (h *Hub) admit(_ context.Context, c *relay.Conn, auth *nostr.Event) string {
	pk := auth.PubKey
	a, refusal := attestationOf(auth)
	if a != nil {
		c.SetOwner(a.Owner)
		c.SetMeta(a)
	}
	v := h.snapshotView()
	if _, ok := v.members[pk]; ok {
		c.SetOwner("")
		c.SetMeta(nil)
		return ""
	}
	if a == nil {
		return h.guestRefusal(c, refusal) // NIP-43: it may still join with an invite (join.go)
	}
	if err := a.Conditions.CheckTime(int64(auth.CreatedAt)); err != nil {
		return "restricted: attestation not valid at this AUTH's created_at: " + err.Error() + "; ask your owner for a fresh one"
	}
	if msg := h.attestationNow(a); msg != "" {
		return msg
	}
	if msg := v.attestationStands(a, pk); msg != "" {
		return msg
	}
	h.closeAtExpiry(c, a)
	h.noteAttestation(a.Owner, pk)
	return ""
}

// noteAttestation records that the hub admitted key with owner's
// attestation, once per process, so that the owner may revoke it later
// (mayRevoke). A failed write is logged; the owner can still revoke with
// the auth tag in the revocation.
func (h *Hub) noteAttestation(owner, key string) {
	if _, done := h.seen.Load([2]string{owner, key}); done {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := h.Store.Exec(ctx, func(tx store.WriteTx) error { return insertSeen(tx, owner, key) })
	if err != nil {
		h.log.Warn("could not record an attestation seen at AUTH", "owner", owner, "key", key, "err", err)
		return
	}
	h.seen.Store([2]string{owner, key}, true)
}

// insertSeen writes an (owner, key) pair to attestations_seen.
func insertSeen(tx store.WriteTx, owner, key string) error {
	_, err := tx.Exec(`INSERT INTO attestations_seen (owner, agent) VALUES (?, ?) ON CONFLICT (owner, agent) DO NOTHING`, owner, key)
	return err
}

// IsMember reports whether the log lists pubkey as a member of the hub (the
// admin key always is).
func (h *Hub) IsMember(pubkey string) bool {
	_, ok := h.snapshotView().members[pubkey]
	return ok
}

// attestationOf verifies the AUTH event's NIP-OA tag, or says why a key that
// is not a member is refused.
func attestationOf(auth *nostr.Event) (*identity.Attestation, string) {
	tag, err := identity.FindAuthTag(auth)
	if errors.Is(err, identity.ErrNoAuthTag) {
		npub, _ := nip19.EncodePublicKey(auth.PubKey)
		return nil, "restricted: " + npub + " is not a member of this hub; ask a hub admin to add you, or authenticate with your owner's NIP-OA auth tag"
	}
	if err != nil {
		return nil, "invalid: " + err.Error()
	}
	a, err := identity.VerifyAuthTag(tag, auth.PubKey)
	if err != nil {
		return nil, "invalid: auth tag: " + err.Error()
	}
	return a, ""
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

// attestationNow: the attestation's time clauses hold by the hub's clock,
// whatever created_at an event or AUTH carries.
func (h *Hub) attestationNow(a *identity.Attestation) string {
	if err := a.Conditions.CheckTime(h.now().Unix()); err != nil {
		return "restricted: your owner's attestation does not hold by the hub's clock: " + err.Error() + "; ask your owner for a fresh one"
	}
	return ""
}

// closeAtExpiry closes c when a's created_at< clause ends by the hub's clock.
func (h *Hub) closeAtExpiry(c *relay.Conn, a *identity.Attestation) {
	until, ok := a.Conditions.Expiry()
	if !ok {
		return
	}
	t := time.AfterFunc(time.Until(time.Unix(until, 0)), func() {
		h.kicks.add(kick{conn: c, reason: "restricted: your owner's attestation expired; ask your owner for a fresh one",
			msg: "attestation expired", attrs: []any{"agent", c.PubKey(), "owner", a.Owner}})
	})
	context.AfterFunc(c.Context(), func() { t.Stop() })
}
