package hub

import (
	"database/sql"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay/store"
	"github.com/nbd-wtf/go-nostr"
)

// projector implements store.Projector: every event that changes hub state is
// checked against the state in the same transaction that stores it, and the
// state tables move with it. Like the store, it decides before it writes: a
// refusal must leave every table as it was.
type projector struct {
	hub *Hub
	// Channel rows and roles read by earlier writes, so a message does not
	// query them again. Only the writer goroutine uses it; every change to a
	// channel drops that channel's entries, and a rollback drops them all.
	cache *writeCache
}

type writeCache struct {
	channels map[string]*channel // nil value: known not to exist
	roles    map[[2]string]string
}

func newWriteCache() *writeCache {
	return &writeCache{channels: map[string]*channel{}, roles: map[[2]string]string{}}
}

func (c *writeCache) forget(channel string) {
	delete(c.channels, channel)
	for k := range c.roles {
		if k[0] == channel {
			delete(c.roles, k)
		}
	}
}

// RolledBack drops everything cached: it may describe undone writes.
func (p *projector) RolledBack() { p.cache = newWriteCache() }

func (p *projector) Schema() []string { return schema }

// Stateful: only state kinds write projection rows.
func (p *projector) Stateful(kind int) bool { return kinds.Classify(kind).IsState() }

var channelID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// tx wraps the write transaction with the lookups the rules need.
type tx struct {
	*store.Tx
	admin string
	cache *writeCache
}

func (p *projector) Apply(sqlTx *store.Tx, ev *nostr.Event) ([]*nostr.Event, error) {
	if p.cache == nil {
		p.cache = newWriteCache()
	}
	t := &tx{sqlTx, p.hub.admin, p.cache}
	ch, err := t.apply(ev)
	if err != nil || ch == nil || p.hub.keys.SecretHex == "" {
		return nil, err
	}
	return p.hub.snapshot(t, ev, ch)
}

// change says what the hub must announce after a state event.
type change struct {
	channel string
	meta    bool   // 39000
	roster  bool   // 39001 and 39002
	system  string // a 40099 row of this type, if any
	target  string // the member the system row is about
}

func (t *tx) apply(ev *nostr.Event) (*change, error) {
	from := sender{pubkey: ev.PubKey}
	if kinds.Classify(ev.Kind).Gate == kinds.RecipientOnly {
		owner, err := t.ownerOf(ev.PubKey)
		if err != nil {
			return nil, err
		}
		from.owner = owner
	}
	if err := checkEvent(t, ev, from); err != nil {
		return nil, err
	}
	switch ev.Kind {
	case kinds.HubMemberAdd, kinds.HubMemberRemove:
		return nil, t.hubMembership(ev)
	case kinds.CreateGroup:
		defer t.cache.forget(tagValue(ev, "h")) // after the change: its own checks cached the old state
		return t.createChannel(ev)
	case kinds.EditMetadata, kinds.DeleteGroup, kinds.AddUser, kinds.RemoveUser, kinds.JoinRequest, kinds.LeaveRequest:
		defer t.cache.forget(tagValue(ev, "h"))
		return t.channelAdmin(ev)
	case kinds.Message:
		return nil, t.message(ev)
	case kinds.Reaction:
		return nil, t.reaction(ev)
	case kinds.Edit:
		return nil, t.edit(ev)
	case kinds.DeleteInChannel:
		return nil, t.deleteInChannel(ev)
	case kinds.Deletion:
		return nil, t.deletion(ev)
	case kinds.Profile:
		return nil, t.profile(ev)
	case kinds.AgentRevocation:
		return nil, t.revocation(ev)
	}
	return nil, nil
}

// --- hub membership (NIP-43 kinds 8000/8001, signed by a hub admin) ---

func (t *tx) hubRole(pk string) (string, error) {
	if pk == t.admin {
		return "admin", nil
	}
	var role string
	err := t.QueryRow(`SELECT role FROM hub_members WHERE pubkey = ?`, pk).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return role, err
}

func (t *tx) hubMembership(ev *nostr.Event) error {
	role, err := t.hubRole(ev.PubKey)
	if err != nil {
		return err
	}
	if role != "admin" {
		return reject("restricted: only a hub admin may add or remove hub members")
	}
	target := tagValue(ev, "p")
	if !isHex64(target) {
		return reject("invalid: the p tag must be a 64-character hex pubkey")
	}
	if ev.Kind == kinds.HubMemberRemove {
		if target == t.admin {
			return reject("invalid: the hub's configured admin cannot be removed")
		}
		res, err := t.Exec(`DELETE FROM hub_members WHERE pubkey = ?`, target)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return reject("invalid: %s is not a hub member", target)
		}
		return nil
	}
	newRole := "member"
	if r := tagValue(ev, "role"); r != "" {
		if r != "member" && r != "admin" {
			return reject("invalid: hub role must be member or admin")
		}
		newRole = r
	}
	_, err = t.Exec(`INSERT INTO hub_members (pubkey, role, added_by) VALUES (?, ?, ?)
		ON CONFLICT (pubkey) DO UPDATE SET role = excluded.role, added_by = excluded.added_by`, target, newRole, ev.PubKey)
	return err
}

// --- channels (NIP-29 style) ---

// channel returns a copy of the channel's row, or nil if there is none.
func (t *tx) channel(id string) (*channel, error) {
	if c, ok := t.cache.channels[id]; ok {
		if c == nil {
			return nil, nil
		}
		cp := *c
		return &cp, nil
	}
	c := &channel{}
	err := t.QueryRow(`SELECT id, name, about, visibility, type, creator, deleted FROM channels WHERE id = ?`, id).
		Scan(&c.id, &c.name, &c.about, &c.visibility, &c.typ, &c.creator, &c.deleted)
	if errors.Is(err, sql.ErrNoRows) {
		c, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(t.cache.channels) > 10000 {
		t.cache.channels = map[string]*channel{}
	}
	t.cache.channels[id] = c
	if c == nil {
		return nil, nil
	}
	cp := *c
	return &cp, nil
}

func (t *tx) role(channel, pk string) (string, error) {
	k := [2]string{channel, pk}
	if role, ok := t.cache.roles[k]; ok {
		return role, nil
	}
	var role string
	err := t.QueryRow(`SELECT role FROM channel_members WHERE channel = ? AND pubkey = ?`, channel, pk).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		role, err = "", nil
	}
	if err != nil {
		return "", err
	}
	if len(t.cache.roles) > 100000 {
		t.cache.roles = map[[2]string]string{}
	}
	t.cache.roles[k] = role
	return role, nil
}

func (t *tx) owners(channel string) (int, error) {
	var n int
	err := t.QueryRow(`SELECT COUNT(*) FROM channel_members WHERE channel = ? AND role = 'owner'`, channel).Scan(&n)
	return n, err
}

func (t *tx) existingChannel(ev *nostr.Event) (*channel, error) {
	id := tagValue(ev, "h")
	c, err := t.channel(id)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, reject("invalid: channel %q does not exist (create it with kind 9007)", id)
	}
	return c, nil
}

func (t *tx) setRole(channel, pk, role string) error {
	_, err := t.Exec(`INSERT INTO channel_members (channel, pubkey, role) VALUES (?, ?, ?)
		ON CONFLICT (channel, pubkey) DO UPDATE SET role = excluded.role`, channel, pk, role)
	return err
}

func (t *tx) createChannel(ev *nostr.Event) (*change, error) {
	id := tagValue(ev, "h")
	if !channelID.MatchString(id) {
		return nil, reject("invalid: channel id must be 1-64 characters of A-Z a-z 0-9 _ . -")
	}
	if c, err := t.channel(id); err != nil {
		return nil, err
	} else if c != nil {
		return nil, reject("duplicate: channel %s already exists", id)
	}
	vis, typ := orDefault(tagValue(ev, "visibility"), "open"), orDefault(tagValue(ev, "type"), "stream")
	if vis != "open" && vis != "private" {
		return nil, reject("invalid: visibility must be open or private")
	}
	if typ != "stream" && typ != "dm" {
		return nil, reject("invalid: type must be stream or dm")
	}
	name := tagValue(ev, "name")
	var participants []string
	if typ == "dm" {
		vis = "private"
		seen := map[string]bool{ev.PubKey: true}
		for _, tg := range ev.Tags {
			if len(tg) >= 2 && tg[0] == "p" && !seen[tg[1]] {
				if !isHex64(tg[1]) {
					return nil, reject("invalid: DM participants must be 64-character hex pubkeys")
				}
				seen[tg[1]] = true
				participants = append(participants, tg[1])
			}
		}
		if len(participants) < 1 || len(participants) > 8 {
			return nil, reject("invalid: a DM needs 1 to 8 other participants as p tags")
		}
	} else if strings.TrimSpace(name) == "" {
		return nil, reject("invalid: a channel needs a name tag")
	}
	if _, err := t.Exec(`INSERT INTO channels (id, name, about, visibility, type, creator, deleted) VALUES (?, ?, ?, ?, ?, ?, 0)`,
		id, name, tagValue(ev, "about"), vis, typ, ev.PubKey); err != nil {
		return nil, err
	}
	if err := t.setRole(id, ev.PubKey, "owner"); err != nil {
		return nil, err
	}
	for _, p := range participants {
		if err := t.setRole(id, p, "member"); err != nil {
			return nil, err
		}
	}
	return &change{channel: id, meta: true, roster: true, system: "channel_created"}, nil
}

func (t *tx) channelAdmin(ev *nostr.Event) (*change, error) {
	c, err := t.existingChannel(ev)
	if err != nil {
		return nil, err
	}
	actor, err := t.role(c.id, ev.PubKey)
	if err != nil {
		return nil, err
	}
	rank := roleRank[actor]
	if c.deleted && ev.Kind != kinds.DeleteGroup {
		return nil, reject("restricted: channel %s is archived", c.id)
	}
	switch ev.Kind {
	case kinds.EditMetadata:
		if rank < roleRank["admin"] {
			return nil, reject("restricted: only a channel owner or admin may edit channel %s", c.id)
		}
		if v := tagValue(ev, "visibility"); v != "" {
			if v != "open" && v != "private" {
				return nil, reject("invalid: visibility must be open or private")
			}
			if c.typ == "dm" && v != "private" {
				return nil, reject("invalid: a DM stays private")
			}
			c.visibility = v
		}
		if hasAnyTag(ev, []string{"name"}) {
			c.name = tagValue(ev, "name")
		}
		if hasAnyTag(ev, []string{"about"}) {
			c.about = tagValue(ev, "about")
		}
		_, err := t.Exec(`UPDATE channels SET name = ?, about = ?, visibility = ? WHERE id = ?`, c.name, c.about, c.visibility, c.id)
		return &change{channel: c.id, meta: true}, err
	case kinds.DeleteGroup:
		if actor != "owner" {
			return nil, reject("restricted: only a channel owner may archive channel %s", c.id)
		}
		_, err := t.Exec(`UPDATE channels SET deleted = 1 WHERE id = ?`, c.id)
		return &change{channel: c.id, meta: true, system: "channel_archived"}, err
	case kinds.AddUser:
		if c.typ == "dm" {
			return nil, reject("restricted: a DM's participants are fixed; open a new DM")
		}
		if rank < roleRank["admin"] {
			return nil, reject("restricted: only a channel owner or admin may add members to %s", c.id)
		}
		pt := pTag(ev)
		if pt == nil || !isHex64(pt[1]) {
			return nil, reject("invalid: the p tag must be a 64-character hex pubkey")
		}
		newRole := "member"
		if len(pt) >= 3 && pt[2] != "" {
			newRole = pt[2]
		} else if r := tagValue(ev, "role"); r != "" {
			newRole = r
		}
		if _, ok := roleRank[newRole]; !ok {
			return nil, reject("invalid: role must be owner, admin, member, guest or bot")
		}
		if roleRank[newRole] >= roleRank["admin"] && actor != "owner" {
			return nil, reject("restricted: only a channel owner may grant the %s role", newRole)
		}
		old, err := t.role(c.id, pt[1])
		if err != nil {
			return nil, err
		}
		if old == "owner" && newRole != "owner" {
			if actor != "owner" {
				return nil, reject("restricted: only an owner may change an owner's role")
			}
			if n, err := t.owners(c.id); err != nil {
				return nil, err
			} else if n <= 1 {
				return nil, reject("invalid: %s is the last owner of %s", pt[1], c.id)
			}
		}
		if err := t.setRole(c.id, pt[1], newRole); err != nil {
			return nil, err
		}
		ch := &change{channel: c.id, roster: true, target: pt[1]}
		if old == "" {
			ch.system = "member_added"
		}
		return ch, nil
	case kinds.RemoveUser:
		pt := pTag(ev)
		if pt == nil {
			return nil, reject("invalid: the p tag must name the member to remove")
		}
		if pt[1] != ev.PubKey && rank < roleRank["admin"] {
			return nil, reject("restricted: only a channel owner or admin may remove members from %s", c.id)
		}
		return t.removeMember(c, pt[1], actor, "member_removed")
	case kinds.JoinRequest:
		if !c.open() {
			return nil, reject("restricted: channel %s is private; ask one of its admins to add you", c.id)
		}
		if actor != "" {
			return nil, reject("duplicate: already a member of %s", c.id)
		}
		if err := t.setRole(c.id, ev.PubKey, "member"); err != nil {
			return nil, err
		}
		return &change{channel: c.id, roster: true, system: "member_joined", target: ev.PubKey}, nil
	case kinds.LeaveRequest:
		if actor == "" {
			return nil, reject("invalid: not a member of %s", c.id)
		}
		return t.removeMember(c, ev.PubKey, actor, "member_left")
	}
	return nil, nil
}

func (t *tx) removeMember(c *channel, target, actor, system string) (*change, error) {
	role, err := t.role(c.id, target)
	if err != nil {
		return nil, err
	}
	if role == "" {
		return nil, reject("invalid: %s is not a member of %s", target, c.id)
	}
	if role == "owner" {
		if actor != "owner" {
			return nil, reject("restricted: only an owner may remove an owner")
		}
		if n, err := t.owners(c.id); err != nil {
			return nil, err
		} else if n <= 1 {
			return nil, reject("invalid: the last owner of %s cannot leave or be removed; make someone else owner first", c.id)
		}
	}
	if _, err := t.Exec(`DELETE FROM channel_members WHERE channel = ? AND pubkey = ?`, c.id, target); err != nil {
		return nil, err
	}
	return &change{channel: c.id, roster: true, system: system, target: target}, nil
}

// --- messages and overlays ---

func (t *tx) event(id string) (*nostr.Event, error) {
	var raw string
	err := t.QueryRow(`SELECT raw FROM events WHERE id = ?`, id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ev := &nostr.Event{}
	return ev, ev.UnmarshalJSON([]byte(raw))
}

// threadRoot is the root of the thread ev belongs to: its root-marked e tag,
// else itself.
func threadRoot(ev *nostr.Event) string {
	for _, tg := range ev.Tags {
		if len(tg) >= 4 && tg[0] == "e" && tg[3] == "root" {
			return tg[1]
		}
	}
	return ev.ID
}

func (t *tx) message(ev *nostr.Event) error {
	c, err := t.existingChannel(ev) // writable: checkEvent ran the channel rule
	if err != nil {
		return err
	}
	var root, parent string
	for _, tg := range ev.Tags {
		if len(tg) < 2 || tg[0] != "e" {
			continue
		}
		marker := ""
		if len(tg) >= 4 {
			marker = tg[3]
		}
		switch marker {
		case "root":
			root = tg[1]
		case "reply":
			parent = tg[1]
		default:
			return reject("invalid: thread e tags need a NIP-10 root or reply marker")
		}
	}
	if root == "" && parent == "" {
		return nil
	}
	if parent == "" {
		parent = root
	}
	p, err := t.event(parent)
	if err != nil {
		return err
	}
	if p == nil {
		return reject("invalid: thread parent %s is not on this hub", parent)
	}
	if tagValue(p, "h") != c.id {
		return reject("invalid: thread parent %s is not in channel %s", parent, c.id)
	}
	want := threadRoot(p)
	if root == "" && want != p.ID {
		return reject("invalid: a reply to a reply needs a root-marked e tag for %s", want)
	}
	if root != "" && root != want {
		return reject("invalid: thread root %s does not match the parent's root %s", root, want)
	}
	return nil
}

// target loads an overlay's target (its last e tag) and checks it shares the
// overlay's channel, if the overlay names one.
func (t *tx) target(ev *nostr.Event) (*nostr.Event, string, error) {
	id := ""
	for _, tg := range ev.Tags {
		if len(tg) >= 2 && tg[0] == "e" {
			id = tg[1]
		}
	}
	target, err := t.event(id)
	if err != nil {
		return nil, "", err
	}
	if target == nil {
		return nil, "", reject("invalid: target event %s is not on this hub", id)
	}
	ch := tagValue(target, "h")
	if h := tagValue(ev, "h"); h != "" && h != ch {
		return nil, "", reject("invalid: target event is in channel %q, not %q", ch, h)
	}
	return target, ch, nil
}

func (t *tx) writable(channel, pk string) error {
	if channel == "" {
		return nil
	}
	c, err := t.channel(channel)
	if err != nil || c == nil {
		return err
	}
	return mayWrite(t, c, pk)
}

func (t *tx) reaction(ev *nostr.Event) error {
	target, ch, err := t.target(ev)
	if err != nil {
		return err
	}
	if err := t.writable(ch, ev.PubKey); err != nil {
		return err
	}
	res, err := t.Exec(`INSERT INTO reactions (target, author, content, event_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		target.ID, ev.PubKey, ev.Content, ev.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return reject("duplicate: you already reacted %q to this event", ev.Content)
	}
	return nil
}

// ownerOf is the NIP-OA owner recorded for an agent key (from its profile).
func (t *tx) ownerOf(pk string) (string, error) {
	var owner string
	err := t.QueryRow(`SELECT owner FROM agents WHERE agent = ?`, pk).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return owner, err
}

func (t *tx) authorOrOwner(target *nostr.Event, actor string) (bool, error) {
	if target.PubKey == actor {
		return true, nil
	}
	owner, err := t.ownerOf(target.PubKey)
	return owner != "" && owner == actor, err
}

func (t *tx) edit(ev *nostr.Event) error {
	target, ch, err := t.target(ev)
	if err != nil {
		return err
	}
	if err := t.writable(ch, ev.PubKey); err != nil {
		return err
	}
	ok, err := t.authorOrOwner(target, ev.PubKey)
	if err != nil {
		return err
	}
	if !ok {
		return reject("restricted: only the author or the author's owner may edit this message")
	}
	return nil
}

func (t *tx) deleteInChannel(ev *nostr.Event) error {
	target, ch, err := t.target(ev)
	if err != nil {
		return err
	}
	ok, err := t.authorOrOwner(target, ev.PubKey)
	if err != nil {
		return err
	}
	if !ok {
		role, err := t.role(ch, ev.PubKey)
		if err != nil {
			return err
		}
		if roleRank[role] < roleRank["admin"] {
			return reject("restricted: only the author, the author's owner or a channel admin may delete this message")
		}
	}
	return nil
}

// deletion (NIP-09): the store removes only the author's own events; the hub
// refuses to delete the events its lasting state is built from, by id or by
// address however spelled, and undoes the effect of the state events it lets
// go. All targets are checked before any projection row changes.
func (t *tx) deletion(ev *nostr.Event) error {
	var targets []*nostr.Event
	profileGone := false
	for _, tg := range ev.Tags {
		if len(tg) < 2 {
			continue
		}
		switch tg[0] {
		case "e":
			target, err := t.event(tg[1])
			if err != nil {
				return err
			}
			if target == nil || target.PubKey != ev.PubKey {
				continue
			}
			if kinds.Classify(target.Kind).Undeletable() {
				return reject("invalid: kind %d is hub state and cannot be deleted; undo it with its own kind instead", target.Kind)
			}
			targets = append(targets, target)
		case "a":
			addr, err := kinds.ParseAddress(tg[1])
			if err != nil {
				return reject("invalid: %v", err)
			}
			if kinds.Classify(addr.Kind).Undeletable() {
				return reject("invalid: kind %d is hub state and cannot be deleted; undo it with its own kind instead", addr.Kind)
			}
			if addr.Kind == kinds.Profile && addr.PubKey == ev.PubKey && addr.D == "" {
				// The store deletes the profile if it is not newer than ev.
				err := t.QueryRow(`SELECT EXISTS (SELECT 1 FROM events WHERE pubkey = ? AND kind = ? AND created_at <= ?)`,
					ev.PubKey, kinds.Profile, int64(ev.CreatedAt)).Scan(&profileGone)
				if err != nil {
					return err
				}
			}
		}
	}
	for _, target := range targets {
		switch target.Kind {
		case kinds.Reaction:
			if _, err := t.Exec(`DELETE FROM reactions WHERE event_id = ?`, target.ID); err != nil {
				return err
			}
		case kinds.Profile:
			profileGone = true
		}
	}
	if profileGone {
		if _, err := t.Exec(`DELETE FROM agents WHERE agent = ?`, ev.PubKey); err != nil {
			return err
		}
	}
	return nil
}

// profile records an agent's owner from the NIP-OA tag on its kind 0.
func (t *tx) profile(ev *nostr.Event) error {
	tag, err := identity.FindAuthTag(ev)
	if errors.Is(err, identity.ErrNoAuthTag) {
		_, err := t.Exec(`DELETE FROM agents WHERE agent = ?`, ev.PubKey)
		return err
	}
	if err != nil {
		return reject("invalid: %v", err)
	}
	a, err := identity.VerifyAuthTag(tag, ev.PubKey)
	if err != nil {
		return reject("invalid: profile auth tag: %v", err)
	}
	_, err = t.Exec(`INSERT INTO agents (agent, owner, conditions) VALUES (?, ?, ?)
		ON CONFLICT (agent) DO UPDATE SET owner = excluded.owner, conditions = excluded.conditions`, ev.PubKey, a.Owner, a.RawConditions)
	return err
}

func (t *tx) revocation(ev *nostr.Event) error {
	owner, agent, at, err := identity.ParseRevocation(ev)
	if err != nil {
		return reject("invalid: %v", err)
	}
	_, err = t.Exec(`INSERT INTO revocations (owner, agent, revoked_at) VALUES (?, ?, ?)
		ON CONFLICT (owner, agent) DO UPDATE SET revoked_at = excluded.revoked_at`, owner, agent, at)
	return err
}

// --- hub-signed announcements ---

// snapshot signs fresh 39000/39001/39002 state for the channel and a 40099
// system row where a person would expect one.
func (h *Hub) snapshot(t *tx, trigger *nostr.Event, ch *change) ([]*nostr.Event, error) {
	c, err := t.channel(ch.channel)
	if err != nil || c == nil {
		return nil, err
	}
	var last int64
	t.QueryRow(`SELECT at FROM state_clock WHERE channel = ?`, c.id).Scan(&last)
	at := max(h.now().Unix(), last+1, int64(trigger.CreatedAt))
	if _, err := t.Exec(`INSERT INTO state_clock (channel, at) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET at = excluded.at`, c.id, at); err != nil {
		return nil, err
	}
	var out []*nostr.Event
	sign := func(kind int, content string, tags nostr.Tags) error {
		ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content, Tags: tags}
		if err := ev.Sign(h.keys.SecretHex); err != nil {
			return err
		}
		out = append(out, ev)
		return nil
	}
	if ch.meta {
		tags := nostr.Tags{{"d", c.id}, {"name", c.name}, {"about", c.about}, {"visibility", c.visibility}, {"type", c.typ}}
		if c.visibility == "open" {
			tags = append(tags, nostr.Tag{"public"}, nostr.Tag{"open"})
		} else {
			tags = append(tags, nostr.Tag{"private"}, nostr.Tag{"closed"})
		}
		if c.deleted {
			tags = append(tags, nostr.Tag{"archived", "true"})
		}
		if err := sign(kinds.GroupMetadata, "", tags); err != nil {
			return nil, err
		}
	}
	if ch.roster {
		rows, err := t.Query(`SELECT pubkey, role FROM channel_members WHERE channel = ? ORDER BY pubkey`, c.id)
		if err != nil {
			return nil, err
		}
		admins, members := nostr.Tags{{"d", c.id}}, nostr.Tags{{"d", c.id}}
		for rows.Next() {
			var pk, role string
			rows.Scan(&pk, &role)
			members = append(members, nostr.Tag{"p", pk, role})
			if roleRank[role] >= roleRank["admin"] {
				admins = append(admins, nostr.Tag{"p", pk, role})
			}
		}
		rows.Close()
		if err := sign(kinds.GroupAdmins, "", admins); err != nil {
			return nil, err
		}
		if err := sign(kinds.GroupMembers, "", members); err != nil {
			return nil, err
		}
	}
	if ch.system != "" {
		body, _ := json.Marshal(map[string]string{"type": ch.system, "actor": trigger.PubKey, "target": ch.target})
		tags := nostr.Tags{{"h", c.id}, {"e", trigger.ID}}
		if ch.target != "" {
			tags = append(tags, nostr.Tag{"p", ch.target})
		}
		if err := sign(kinds.SystemRow, string(body), tags); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// --- tag helpers ---

func tagValue(ev *nostr.Event, name string) string {
	for _, tg := range ev.Tags {
		if len(tg) >= 2 && tg[0] == name {
			return tg[1]
		}
	}
	return ""
}

func pTag(ev *nostr.Event) nostr.Tag {
	for _, tg := range ev.Tags {
		if len(tg) >= 2 && tg[0] == "p" {
			return tg
		}
	}
	return nil
}

func hasAnyTag(ev *nostr.Event, names []string) bool {
	for _, tg := range ev.Tags {
		if len(tg) >= 2 {
			for _, n := range names {
				if tg[0] == n {
					return true
				}
			}
		}
	}
	return false
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
			return false
		}
	}
	return true
}
