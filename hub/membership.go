package hub

import (
	"database/sql"
	"errors"
	"strconv"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Membership: of the hub (NIP-43 kinds 8000/8001, signed by a hub admin) and
// of channels (NIP-29 style 9000 add or set role, 9001 remove, 9021 join,
// 9022 leave).
func membershipRules(rs ruleSet) {
	rs.add((*tx).hubMembership, kinds.HubMemberAdd, kinds.HubMemberRemove)
	rs.add((*tx).addMember, kinds.AddUser)
	rs.add((*tx).removeUser, kinds.RemoveUser)
	rs.add((*tx).join, kinds.JoinRequest)
	rs.add((*tx).leave, kinds.LeaveRequest)
}

// hubRole is pk's role in the hub: the configured admin, a member or none.
func (t *tx) hubRole(pk string) (role, error) {
	if pk == t.admin {
		return roleAdmin, nil
	}
	var r role
	err := t.QueryRow(`SELECT role FROM hub_members WHERE pubkey = ?`, pk).Scan(&r)
	if errors.Is(err, sql.ErrNoRows) {
		return noRole, nil
	}
	return r, err
}

func (t *tx) hubMembership(ev *nostr.Event) (*change, error) {
	var err error
	by, addedBy := t.by, ev.PubKey
	call := ev.Tags.Find(tagAuthorization) != nil // a NIP-86 call (nip86.go)
	if call {
		if by, err = t.authorizedAdmin(ev); err != nil {
			return nil, err
		}
		addedBy = by
	}
	actor, err := t.hubRole(by)
	if err != nil {
		return nil, err
	}
	// The hub's own key signs an 8000 for a key an invite admitted and an
	// 8001 for a member who asked to leave (join.go); a NIP-86 call's events
	// are the hub's too, but stand for the admin who authorized them.
	bySelf := false
	if !call {
		if bySelf, err = t.isHubKey(ev.PubKey); err != nil {
			return nil, err
		}
	}
	byInvite := bySelf && ev.Kind == kinds.HubMemberAdd
	if actor != roleAdmin && !bySelf {
		return nil, reject("restricted: only a hub admin may add or remove hub members")
	}
	target := ev.Tags.Find("p")[1] // required by the kinds table
	if !nostr.IsValid32ByteHex(target) {
		return nil, reject("invalid: the p tag must be a 64-character hex pubkey")
	}
	if ev.Kind == kinds.HubMemberRemove {
		if target == t.admin {
			return nil, reject("invalid: the hub's configured admin cannot be removed")
		}
		if r, err := t.hubRole(target); err != nil {
			return nil, err
		} else if r == noRole {
			return nil, reject("invalid: %s is not a hub member", target)
		}
		if _, err := t.Exec(`DELETE FROM hub_members WHERE pubkey = ?`, target); err != nil {
			return nil, err
		}
		t.note(func(e *viewEdit) { e.setHubMember(target, noRole) })
		return &change{members: true}, nil
	}
	if cl := ev.Tags.Find("claim"); cl != nil || byInvite {
		if addedBy, err = t.useClaim(ev, cl, byInvite); err != nil {
			return nil, err
		}
	}
	newRole := roleMember
	if tg := ev.Tags.Find("role"); tg != nil && !byInvite {
		if tg[1] != string(roleMember) && tg[1] != string(roleAdmin) {
			return nil, reject("invalid: hub role must be member or admin")
		}
		newRole = role(tg[1])
	}
	if _, err = t.Exec(`INSERT INTO hub_members (pubkey, role, added_by) VALUES (?, ?, ?)
		ON CONFLICT (pubkey) DO UPDATE SET role = excluded.role, added_by = excluded.added_by`, target, newRole, addedBy); err != nil {
		return nil, err
	}
	if target != t.admin {
		t.note(func(e *viewEdit) { e.setHubMember(target, newRole) })
	}
	return &change{members: true}, nil
}

// isHubKey reports whether pk is a key a hub on this log signs with: this
// one's, or one recorded in hub_keys.
func (t *tx) isHubKey(pk string) (bool, error) {
	if t.self != "" && pk == t.self {
		return true, nil
	}
	var n int
	err := t.QueryRow(`SELECT COUNT(*) FROM hub_keys WHERE pubkey = ?`, pk).Scan(&n)
	return n > 0, err
}

// useClaim counts a use of the invite claim a hub-signed 8000 names
// (["claim", id, limit], ["issuer", pk]) and returns the issuer, who added
// the member; the claim's last use refuses the next.
func (t *tx) useClaim(ev *nostr.Event, cl nostr.Tag, byInvite bool) (string, error) {
	if !byInvite {
		return "", reject("invalid: only the hub's own 8000 names an invite claim (a join request, kind 28934, uses one)")
	}
	issuer := tagValue(ev, "issuer")
	if len(cl) < 3 || !nostr.IsValid32ByteHex(issuer) {
		return "", reject("invalid: an 8000 by invite needs [\"claim\", id, uses] and [\"issuer\", pubkey]")
	}
	limit, err := strconv.Atoi(cl[2])
	if err != nil {
		return "", reject("invalid: an 8000 by invite needs [\"claim\", id, uses] and [\"issuer\", pubkey]")
	}
	var used int
	if err := t.QueryRow(`SELECT COUNT(*) FROM invite_uses WHERE claim = ?`, cl[1]).Scan(&used); err != nil {
		return "", err
	}
	if r, err := t.hubRole(tagValue(ev, "p")); err != nil {
		return "", err
	} else if r != noRole { // admitted meanwhile: an invite never changes a role
		return "", reject("duplicate: you are already a member of this hub")
	}
	if revoked, err := t.claimRevoked(cl[1]); err != nil {
		return "", err
	} else if revoked {
		return "", reject("restricted: that invite code was revoked by a hub admin; ask for a new one")
	}
	if used >= limit {
		return "", reject("restricted: that invite code has been used %d of %d times; ask for a new one", used, limit)
	}
	_, err = t.Exec(`INSERT INTO invite_uses (claim, member) VALUES (?, ?) ON CONFLICT DO NOTHING`, cl[1], tagValue(ev, "p"))
	return issuer, err
}

// member loads the channel named by ev's h and the author's role in it, and
// refuses archived channels.
func (t *tx) member(ev *nostr.Event) (*channel, role, error) {
	c, err := t.existingChannel(ev)
	if err != nil {
		return nil, noRole, err
	}
	if c.deleted {
		return nil, noRole, reject("restricted: channel %s is archived", c.id)
	}
	actor, err := t.role(c.id, t.by)
	return c, actor, err
}

func (t *tx) addMember(ev *nostr.Event) (*change, error) {
	c, actor, err := t.member(ev)
	if err != nil {
		return nil, err
	}
	if c.typ == typeDM {
		return nil, reject("restricted: a DM's participants are fixed; open a new DM")
	}
	if !actor.atLeast(roleAdmin) {
		return nil, reject("restricted: only a channel owner or admin may add members to %s", c.id)
	}
	pt := ev.Tags.Find("p")
	if !nostr.IsValid32ByteHex(pt[1]) {
		return nil, reject("invalid: the p tag must be a 64-character hex pubkey")
	}
	name := string(roleMember)
	if len(pt) >= 3 && pt[2] != "" {
		name = pt[2]
	} else if tg := ev.Tags.Find("role"); tg != nil {
		name = tg[1]
	}
	newRole, ok := parseRole(name)
	if !ok {
		return nil, reject("invalid: role must be owner, admin, member, guest or bot")
	}
	if newRole.atLeast(roleAdmin) && actor != roleOwner {
		return nil, reject("restricted: only a channel owner may grant the %s role", newRole)
	}
	old, err := t.role(c.id, pt[1])
	if err != nil {
		return nil, err
	}
	if old == roleOwner && newRole != roleOwner {
		if err := t.mayDropOwner(c, actor, pt[1]); err != nil {
			return nil, err
		}
	}
	if err := t.setRole(c.id, pt[1], newRole); err != nil {
		return nil, err
	}
	ch := &change{channel: c.id, roster: true, target: pt[1]}
	if old == noRole {
		ch.system = "member_added"
	}
	return ch, nil
}

func (t *tx) removeUser(ev *nostr.Event) (*change, error) {
	c, actor, err := t.member(ev)
	if err != nil {
		return nil, err
	}
	target := ev.Tags.Find("p")[1]
	if target != ev.PubKey && target != t.by && !actor.atLeast(roleAdmin) {
		return nil, reject("restricted: only a channel owner or admin may remove members from %s", c.id)
	}
	return t.removeMember(c, target, actor, "member_removed")
}

func (t *tx) join(ev *nostr.Event) (*change, error) {
	c, actor, err := t.member(ev)
	if err != nil {
		return nil, err
	}
	if actor != noRole {
		return nil, reject("duplicate: already a member of %s", c.id)
	}
	if !c.open() {
		return nil, reject("restricted: channel %s is private; ask one of its admins to add you", c.id)
	}
	if err := t.setRole(c.id, t.by, roleMember); err != nil {
		return nil, err
	}
	return &change{channel: c.id, roster: true, system: "member_joined", target: t.by}, nil
}

func (t *tx) leave(ev *nostr.Event) (*change, error) {
	c, actor, err := t.member(ev)
	if err != nil {
		return nil, err
	}
	if actor == noRole {
		return nil, reject("invalid: not a member of %s", c.id)
	}
	return t.removeMember(c, t.by, actor, "member_left")
}

func (t *tx) removeMember(c *channel, target string, actor role, system string) (*change, error) {
	r, err := t.role(c.id, target)
	if err != nil {
		return nil, err
	}
	if r == noRole {
		return nil, reject("invalid: %s is not a member of %s", target, c.id)
	}
	if r == roleOwner {
		if err := t.mayDropOwner(c, actor, target); err != nil {
			return nil, err
		}
	}
	if err := t.setRole(c.id, target, noRole); err != nil {
		return nil, err
	}
	return &change{channel: c.id, roster: true, system: system, target: target}, nil
}

// mayDropOwner: only an owner may remove or demote an owner (themself
// included), and a channel always keeps at least one owner.
func (t *tx) mayDropOwner(c *channel, actor role, target string) error {
	if actor != roleOwner {
		return reject("restricted: only an owner may remove or demote an owner")
	}
	n, err := t.owners(c.id)
	if err != nil {
		return err
	}
	if n <= 1 {
		return reject("invalid: %s is the last owner of %s; make someone else owner first", target, c.id)
	}
	return nil
}
