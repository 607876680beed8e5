package hub

import (
	"errors"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Agents: an agent's kind 0 profile carrying its owner's NIP-OA auth tag
// records the owner; an owner's 30450 revocation ends the attestation.
func agentRules(rs ruleSet) {
	rs.add((*tx).profile, kinds.Profile)
	rs.add((*tx).revocation, kinds.AgentRevocation)
}

// profile records an agent's owner from the NIP-OA tag on its kind 0; a
// profile without one drops the link.
func (t *tx) profile(ev *nostr.Event) (*change, error) {
	tag, err := identity.FindAuthTag(ev)
	if errors.Is(err, identity.ErrNoAuthTag) {
		return nil, t.setAgent(ev.PubKey, nil, false)
	}
	if err != nil {
		return nil, reject("invalid: %v", err)
	}
	a, err := identity.VerifyAuthTag(tag, ev.PubKey)
	if err != nil {
		return nil, reject("invalid: profile auth tag: %v", err)
	}
	return nil, t.setAgent(ev.PubKey, a, a.Device)
}

// setAgent records (a != nil) or drops the owner of an attested key, and
// whether it is a paired device: its attestation holds the device clause,
// which only its owner can sign (the profile's ["device"] tag is for
// display and proves nothing).
func (t *tx) setAgent(agent string, a *identity.Attestation, device bool) error {
	var err error
	owner, conds := "", identity.Conditions{}
	if a == nil {
		_, err = t.Exec(`DELETE FROM agents WHERE agent = ?`, agent)
	} else {
		owner, conds = a.Owner, a.Conditions
		_, err = t.Exec(`INSERT INTO agents (agent, owner, conditions) VALUES (?, ?, ?)
			ON CONFLICT (agent) DO UPDATE SET owner = excluded.owner, conditions = excluded.conditions`, agent, owner, a.RawConditions)
		if err == nil {
			err = insertSeen(t, owner, agent)
		}
	}
	device = device && a != nil
	clear(t.cache.attested)
	if err == nil && device {
		_, err = t.Exec(`INSERT INTO devices (device) VALUES (?) ON CONFLICT (device) DO NOTHING`, agent)
	} else if err == nil {
		_, err = t.Exec(`DELETE FROM devices WHERE device = ?`, agent)
	}
	if err == nil {
		t.note(func(e *viewEdit) {
			e.setAgent(agent, owner)
			e.setDevice(agent, conds, device)
		})
	}
	return err
}

// profileAtOrBefore reports whether pk's stored profile is not newer than at,
// so that a deletion by address created at at removes it.
func (t *tx) profileAtOrBefore(pk string, at int64) (bool, error) {
	return store.HasAtOrBefore(t, pk, kinds.Profile, at)
}

func (t *tx) revocation(ev *nostr.Event) (*change, error) {
	owner, agent, at, err := identity.ParseRevocation(ev)
	if err != nil {
		return nil, reject("invalid: %v", err)
	}
	if err := t.mayRevoke(owner, agent); err != nil {
		return nil, err
	}
	if _, err := t.Exec(`INSERT INTO revocations (owner, agent, revoked_at) VALUES (?, ?, ?)
		ON CONFLICT (owner, agent) DO UPDATE SET revoked_at = excluded.revoked_at`, owner, agent, at); err != nil {
		return nil, err
	}
	clear(t.cache.attested)
	t.note(func(e *viewEdit) { e.setRevocation(owner, agent, at) })
	return nil, nil
}

// mayRevoke: only the owner named in an attestation of agent that the hub
// has seen signs its revocation (spec/identity.md): an owner whose
// attestation of it the hub admitted at AUTH or found on its profile, or
// whose revocation of it the hub already holds. A key the hub has seen no
// attestation of may be revoked by any member in advance (a tag that
// leaked before its key ever connected): such a revocation ends only its
// signer's own attestations. Anyone else's 30450 is refused, so that no
// reader of the log has to tell a real revocation from a stranger's.
//
// The check needs what the log alone does not hold (an attestation seen at
// AUTH), so replay, which applies only events the rule accepted once, skips
// it.
func (t *tx) mayRevoke(owner, agent string) error {
	if t.edits == nil { // replay
		return nil
	}
	var mine, any int
	err := t.QueryRow(`SELECT
		(SELECT COUNT(*) FROM attestations_seen WHERE agent = ? AND owner = ?)
		+ (SELECT COUNT(*) FROM agents WHERE agent = ? AND owner = ?)
		+ (SELECT COUNT(*) FROM revocations WHERE agent = ? AND owner = ?),
		(SELECT COUNT(*) FROM attestations_seen WHERE agent = ?) + (SELECT COUNT(*) FROM agents WHERE agent = ?)`,
		agent, owner, agent, owner, agent, owner, agent, agent).Scan(&mine, &any)
	switch {
	case err != nil:
		return err
	case mine > 0 || any == 0:
		return nil
	}
	return reject("restricted: only the owner named in an attestation of this key that the hub has seen may revoke it; the hub has seen it attested by another owner, never by you")
}

// authorOrOwner reports whether actor wrote target, or the member actor acts
// as (t.by: a live device's owner) wrote it or owns the agent or device that
// did. So an owner edits its devices' and agents' messages from any of its
// devices, and a device edits its owner's.
func (t *tx) authorOrOwner(target *nostr.Event, actor string) (bool, error) {
	if target.PubKey == actor || target.PubKey == t.by {
		return true, nil
	}
	owner, err := t.ownerOf(target.PubKey)
	return owner != "" && owner == t.by, err
}

// attestedKey is what the log says of a key attested by a member: its
// owner, whether the attestation on its profile is a device attestation (the
// owner-signed device clause), the conditions of that attestation, and the
// owner's revocation of it, if any.
type attestedKey struct {
	owner     string
	device    bool
	conds     identity.Conditions
	revoked   bool
	revokedAt int64
}

// deadAt says why the attestation does not stand at created_at, or "".
func (a attestedKey) deadAt(createdAt int64) string {
	if a.revoked && identity.RevokedBy(a.conds, a.revokedAt) {
		return "its owner revoked it"
	}
	if err := a.conds.CheckTime(createdAt); err != nil {
		return err.Error()
	}
	return ""
}
