package hub

import (
	"database/sql"
	"fmt"
	"maps"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/store"
)

type channelView struct {
	channel
	members map[string]role // pubkey → role
}

// view is an in-memory copy of the projections, for read checks on the hot
// path (every live event to every subscriber) and the rules of ephemeral
// events. A view is never changed once published: each commit builds the
// next one with a viewEdit, copying only what it changes, so a reader holding
// a view sees one consistent state.
type view struct {
	members     map[string]role // hub member → role
	channels    map[string]*channelView
	agents      map[string]string              // agent → owner, from profiles
	devices     map[string]identity.Conditions // paired device → its attestation's conditions
	revocations map[[2]string]int64
	info        map[string]string // hub_info: NIP-11 fields set by NIP-86 calls (hubinfo.go)
}

func loadView(db store.Reader, admin string) (*view, error) {
	v := &view{members: map[string]role{admin: roleAdmin}, channels: map[string]*channelView{}, agents: map[string]string{}, devices: map[string]identity.Conditions{}, revocations: map[[2]string]int64{}}
	scan := func(q string, fn func(*sql.Rows) error) error {
		rows, err := db.Query(q)
		if err != nil {
			return fmt.Errorf("loading hub state: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	err := scan(`SELECT pubkey, role FROM hub_members`, func(r *sql.Rows) error {
		var pk string
		var rl role
		err := r.Scan(&pk, &rl)
		if pk != admin {
			v.members[pk] = rl
		}
		return err
	})
	if err == nil {
		err = scan(`SELECT id, name, about, visibility, type, creator, deleted,
			COALESCE((SELECT picture FROM channel_pictures WHERE channel = channels.id), '') FROM channels`, func(r *sql.Rows) error {
			c := &channelView{members: map[string]role{}}
			err := r.Scan(&c.id, &c.name, &c.about, &c.visibility, &c.typ, &c.creator, &c.deleted, &c.picture)
			v.channels[c.id] = c
			return err
		})
	}
	if err == nil {
		err = scan(`SELECT channel, pubkey, role FROM channel_members`, func(r *sql.Rows) error {
			var ch, pk string
			var rl role
			err := r.Scan(&ch, &pk, &rl)
			if c := v.channels[ch]; c != nil {
				c.members[pk] = rl
			}
			return err
		})
	}
	if err == nil {
		err = scan(`SELECT agent, owner FROM agents`, func(r *sql.Rows) error {
			var a, o string
			err := r.Scan(&a, &o)
			v.agents[a] = o
			return err
		})
	}
	if err == nil {
		err = scan(`SELECT d.device, a.conditions FROM devices d JOIN agents a ON a.agent = d.device`, func(r *sql.Rows) error {
			var d, raw string
			if err := r.Scan(&d, &raw); err != nil {
				return err
			}
			c, err := identity.ParseConditions(raw)
			v.devices[d] = c
			return err
		})
	}
	if err == nil {
		err = scan(`SELECT owner, agent, revoked_at FROM revocations`, func(r *sql.Rows) error {
			var o, a string
			var at int64
			err := r.Scan(&o, &a, &at)
			v.revocations[[2]string{o, a}] = at
			return err
		})
	}
	if err == nil {
		err = loadInfo(db, v)
	}
	return v, err
}

// canRead: open channels to every participant, others to their members. An
// unknown channel is readable: nothing is stored under it but what its
// authors chose to tag.
func (v *view) canRead(channel, pk string) bool {
	c := v.channels[channel]
	if c == nil || c.open() {
		return true
	}
	_, ok := c.members[pk]
	return ok
}

// The view answers the write rules for ephemeral events.
var _ state = (*view)(nil)

func (v *view) channel(id string) (*channel, error) {
	c := v.channels[id]
	if c == nil {
		return nil, nil
	}
	cp := c.channel
	return &cp, nil
}

func (v *view) role(channel, pk string) (role, error) {
	if c := v.channels[channel]; c != nil {
		return c.members[pk], nil
	}
	return noRole, nil
}

func (v *view) ownerOf(agent string) (string, error) { return v.agents[agent], nil }

func (v *view) attested(pk string) (attestedKey, error) {
	a := attestedKey{owner: v.agents[pk]}
	if a.owner == "" {
		return a, nil
	}
	a.conds, a.device = v.devices[pk]
	a.revokedAt, a.revoked = v.revocations[[2]string{a.owner, pk}]
	return a, nil
}

// delta is one change to the view, noted by a rule as it writes the matching
// row and applied once the transaction commits.
type delta func(e *viewEdit)

// viewEdit builds the next view from a published one, copying each map the
// first time it changes it.
type viewEdit struct {
	next                         *view
	members, chans, agents, revs bool // top-level maps already copied
	devices                      bool
	copied                       map[string]bool // channels already copied
}

func newViewEdit(v *view) *viewEdit {
	next := *v
	return &viewEdit{next: &next, copied: map[string]bool{}}
}

// channel returns the next view's copy of a channel, creating it if needed.
func (e *viewEdit) channel(id string) *channelView {
	if !e.chans {
		e.next.channels, e.chans = maps.Clone(e.next.channels), true
	}
	if !e.copied[id] {
		cv := &channelView{members: map[string]role{}}
		if old := e.next.channels[id]; old != nil {
			cv.channel, cv.members = old.channel, maps.Clone(old.members)
		}
		e.next.channels[id], e.copied[id] = cv, true
	}
	return e.next.channels[id]
}

func (e *viewEdit) setRole(channel, pk string, r role) {
	if r == noRole {
		delete(e.channel(channel).members, pk)
		return
	}
	e.channel(channel).members[pk] = r
}

func (e *viewEdit) setHubMember(pk string, r role) {
	if !e.members {
		e.next.members, e.members = maps.Clone(e.next.members), true
	}
	if r == noRole {
		delete(e.next.members, pk)
		return
	}
	e.next.members[pk] = r
}

func (e *viewEdit) setAgent(agent, owner string) {
	if !e.agents {
		e.next.agents, e.agents = maps.Clone(e.next.agents), true
	}
	if owner == "" {
		delete(e.next.agents, agent)
		return
	}
	e.next.agents[agent] = owner
}

func (e *viewEdit) setDevice(pk string, conds identity.Conditions, device bool) {
	if !e.devices {
		e.next.devices, e.devices = maps.Clone(e.next.devices), true
	}
	if !device {
		delete(e.next.devices, pk)
		return
	}
	e.next.devices[pk] = conds
}

func (e *viewEdit) setRevocation(owner, agent string, at int64) {
	if !e.revs {
		e.next.revocations, e.revs = maps.Clone(e.next.revocations), true
	}
	e.next.revocations[[2]string{owner, agent}] = at
}
