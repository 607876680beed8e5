package hub

import (
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Revoking one invite claim (spec/auth.md, "Invites (NIP-43)"): a hub admin
// (or a device of one) signs a kind 30451 whose d is the claim's id; the
// claim admits no key after it (useClaim), while the keys it admitted stay
// members. Claims are not stored, so the revocation is what the log keeps.

func inviteRevocationRules(rs ruleSet) { rs.add((*tx).revokeInvite, kinds.InviteRevocation) }

func (t *tx) revokeInvite(ev *nostr.Event) (*change, error) {
	if r, err := t.hubRole(t.by); err != nil {
		return nil, err
	} else if r != roleAdmin {
		return nil, reject("restricted: only a hub admin revokes invites")
	}
	id := tagValue(ev, "d")
	if !kinds.IsInviteClaimID(id) {
		return nil, reject("invalid: the d tag must be an invite claim's id (16 hex digits, as hive invite --json shows it)")
	}
	_, err := t.Exec(`INSERT INTO invite_revocations (claim) VALUES (?) ON CONFLICT DO NOTHING`, id)
	return nil, err
}

// claimRevoked reports whether an admin revoked the claim id.
func (t *tx) claimRevoked(id string) (bool, error) {
	var n int
	err := t.QueryRow(`SELECT COUNT(*) FROM invite_revocations WHERE claim = ?`, id).Scan(&n)
	return n > 0, err
}
