package hub

import (
	"database/sql"
	"fmt"
)

// Roles in a channel, by rank.
var roleRank = map[string]int{"guest": 1, "bot": 2, "member": 2, "admin": 3, "owner": 4}

// channel is a row of the channels table.
type channel struct {
	id, name, about, visibility, typ, creator string
	deleted                                   bool // archived
}

// open channels are readable and writable by every hub participant.
func (c *channel) open() bool { return c.visibility == "open" && c.typ == "stream" }

type channelView struct {
	channel
	members map[string]string // pubkey → role
}

// view is an in-memory copy of the projections, for read checks on the hot
// path (every live event to every subscriber). Writes are checked against the
// tables inside the write transaction instead.
type view struct {
	members     map[string]string // hub member → role
	channels    map[string]*channelView
	agents      map[string]string // agent → owner, from profiles
	revocations map[[2]string]int64
}

func loadView(db *sql.DB, admin string) (*view, error) {
	v := &view{members: map[string]string{admin: "admin"}, channels: map[string]*channelView{}, agents: map[string]string{}, revocations: map[[2]string]int64{}}
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
		var pk, role string
		err := r.Scan(&pk, &role)
		if pk != admin {
			v.members[pk] = role
		}
		return err
	})
	if err == nil {
		err = scan(`SELECT id, name, about, visibility, type, creator, deleted FROM channels`, func(r *sql.Rows) error {
			c := &channelView{members: map[string]string{}}
			err := r.Scan(&c.id, &c.name, &c.about, &c.visibility, &c.typ, &c.creator, &c.deleted)
			v.channels[c.id] = c
			return err
		})
	}
	if err == nil {
		err = scan(`SELECT channel, pubkey, role FROM channel_members`, func(r *sql.Rows) error {
			var ch, pk, role string
			err := r.Scan(&ch, &pk, &role)
			if c := v.channels[ch]; c != nil {
				c.members[pk] = role
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
		err = scan(`SELECT owner, agent, revoked_at FROM revocations`, func(r *sql.Rows) error {
			var o, a string
			var at int64
			err := r.Scan(&o, &a, &at)
			v.revocations[[2]string{o, a}] = at
			return err
		})
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

func (v *view) role(channel, pk string) (string, error) {
	if c := v.channels[channel]; c != nil {
		return c.members[pk], nil
	}
	return "", nil
}

func (v *view) ownerOf(agent string) (string, error) { return v.agents[agent], nil }
