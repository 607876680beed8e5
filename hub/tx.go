package hub

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// kindRule checks an event of its kind against the hub state in the write
// transaction and, if it passes, writes the event's effect. Like the store it
// decides before it writes: a refusal leaves every table as it was.
type kindRule func(t *tx, ev *nostr.Event) (*change, error)

// ruleSet maps each kind to its one rule.
type ruleSet map[int]kindRule

func (rs ruleSet) add(rule kindRule, ks ...int) {
	for _, k := range ks {
		if _, dup := rs[k]; dup {
			panic(fmt.Sprintf("hub: kind %d has two rules", k))
		}
		rs[k] = rule
	}
}

// allRules gathers the rules each feature registers.
func allRules() ruleSet {
	rs := ruleSet{}
	membershipRules(rs)
	channelRules(rs)
	threadRules(rs)
	overlayRules(rs)
	agentRules(rs)
	readStateRules(rs)
	receiptRules(rs)
	workflowRules(rs)
	hubInfoRules(rs)
	inviteRevocationRules(rs)
	return rs
}

// change says what the hub must announce after a channel event.
type change struct {
	channel string
	meta    bool   // 39000
	roster  bool   // 39001 and 39002
	members bool   // the hub's member list changed: 13534 and 19004
	system  string // a 40099 row of this type, if any
	target  string // the member the system row is about
}

// tx wraps the write transaction with the lookups the rules need. It
// implements state, so the rules every event obeys read it like the view.
type tx struct {
	store.WriteTx
	admin string
	self  string // the hub's own key: it signs the events of NIP-86 calls (nip86.go) and admits keys by invite (invite.go)
	// secret is the hub's secret key (hex), to open what is sealed to it
	// (a webhook's secret); "" when the hub has none (replay --verify).
	secret string
	rules  ruleSet
	cache  *writeCache
	// edits receives the view changes of the event being applied; nil when
	// nobody keeps a view (replay).
	edits func(delta)
	// by is the member the author of the event being applied acts as
	// (actsAs), set by apply for its kind's rule.
	by string
}

var _ state = (*tx)(nil)

// apply runs the rules every event obeys, then its kind's own rule.
func (t *tx) apply(ev *nostr.Event) (*change, error) {
	by, err := actsAs(t, ev.PubKey, int64(ev.CreatedAt))
	if err != nil {
		return nil, err
	}
	t.by = by
	from := sender{pubkey: ev.PubKey, as: by}
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
	if rule := t.rules[ev.Kind]; rule != nil {
		return rule(t, ev)
	}
	return nil, nil
}

// note records a view change that takes effect when the transaction commits.
func (t *tx) note(d delta) {
	if t.edits != nil {
		t.edits(d)
	}
}

// writeCache holds channel rows and roles read or written by earlier events,
// so a message does not query them again. Only the writer goroutine uses it;
// a rollback drops it whole.
type writeCache struct {
	channels map[string]*channel // nil value: known not to exist
	roles    map[[2]string]role
	attested map[string]attestedKey // emptied when a profile or revocation changes
}

func newWriteCache() *writeCache {
	return &writeCache{channels: map[string]*channel{}, roles: map[[2]string]role{}, attested: map[string]attestedKey{}}
}

func (c *writeCache) putChannel(id string, ch *channel) {
	if len(c.channels) > 10000 {
		c.channels = map[string]*channel{}
	}
	c.channels[id] = ch
}

func (c *writeCache) putRole(channel, pk string, r role) {
	if len(c.roles) > 100000 {
		c.roles = map[[2]string]role{}
	}
	c.roles[[2]string{channel, pk}] = r
}

// channel returns a copy of the channel's row, or nil if there is none.
func (t *tx) channel(id string) (*channel, error) {
	c, ok := t.cache.channels[id]
	if !ok {
		c = &channel{}
		err := t.QueryRow(`SELECT id, name, about, visibility, type, creator, deleted,
			COALESCE((SELECT picture FROM channel_pictures WHERE channel = channels.id), '') FROM channels WHERE id = ?`, id).
			Scan(&c.id, &c.name, &c.about, &c.visibility, &c.typ, &c.creator, &c.deleted, &c.picture)
		if errors.Is(err, sql.ErrNoRows) {
			c, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		t.cache.putChannel(id, c)
	}
	if c == nil {
		return nil, nil
	}
	cp := *c
	return &cp, nil
}

// putChannel writes a channel's row.
func (t *tx) putChannel(c *channel) error {
	_, err := t.Exec(`INSERT INTO channels (id, name, about, visibility, type, creator, deleted) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, about = excluded.about, visibility = excluded.visibility, deleted = excluded.deleted`,
		c.id, c.name, c.about, c.visibility, c.typ, c.creator, c.deleted)
	if err == nil && c.picture != "" {
		_, err = t.Exec(`INSERT INTO channel_pictures (channel, picture) VALUES (?, ?)
			ON CONFLICT (channel) DO UPDATE SET picture = excluded.picture`, c.id, c.picture)
	} else if err == nil {
		_, err = t.Exec(`DELETE FROM channel_pictures WHERE channel = ?`, c.id)
	}
	if err != nil {
		return err
	}
	cp := *c
	t.cache.putChannel(c.id, &cp)
	t.note(func(e *viewEdit) { e.channel(cp.id).channel = cp })
	return nil
}

func (t *tx) role(channel, pk string) (role, error) {
	if r, ok := t.cache.roles[[2]string{channel, pk}]; ok {
		return r, nil
	}
	var r role
	err := t.QueryRow(`SELECT role FROM channel_members WHERE channel = ? AND pubkey = ?`, channel, pk).Scan(&r)
	if errors.Is(err, sql.ErrNoRows) {
		r, err = noRole, nil
	}
	if err != nil {
		return noRole, err
	}
	t.cache.putRole(channel, pk, r)
	return r, nil
}

// setRole makes pk a member of the channel with role r (noRole removes it).
func (t *tx) setRole(channel, pk string, r role) error {
	var err error
	if r == noRole {
		_, err = t.Exec(`DELETE FROM channel_members WHERE channel = ? AND pubkey = ?`, channel, pk)
	} else {
		_, err = t.Exec(`INSERT INTO channel_members (channel, pubkey, role) VALUES (?, ?, ?)
			ON CONFLICT (channel, pubkey) DO UPDATE SET role = excluded.role`, channel, pk, r)
	}
	if err != nil {
		return err
	}
	t.cache.putRole(channel, pk, r)
	t.note(func(e *viewEdit) { e.setRole(channel, pk, r) })
	return nil
}

func (t *tx) owners(channel string) (int, error) {
	var n int
	err := t.QueryRow(`SELECT COUNT(*) FROM channel_members WHERE channel = ? AND role = ?`, channel, roleOwner).Scan(&n)
	return n, err
}

// event loads a stored event by id, or nil.
func (t *tx) event(id string) (*nostr.Event, error) { return store.EventByID(t.WriteTx, id) }

// ownerOf is the NIP-OA owner recorded for an agent key (from its profile).
func (t *tx) ownerOf(pk string) (string, error) {
	var owner string
	err := t.QueryRow(`SELECT owner FROM agents WHERE agent = ?`, pk).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return owner, err
}

func reject(format string, args ...any) error {
	return &store.Rejection{Msg: fmt.Sprintf(format, args...)}
}

// notStored refuses an event that names an event the hub does not have;
// the store retries it if that event is later in the same commit batch.
func notStored(id, format string, args ...any) error {
	return &store.Rejection{Msg: fmt.Sprintf(format, args...), Needs: id}
}

// attested reads an attested key's owner, device marker, conditions and
// its owner's revocation of it (cached: every event's author is looked up,
// to know whom it acts as).
func (t *tx) attested(pk string) (attestedKey, error) {
	if a, ok := t.cache.attested[pk]; ok {
		return a, nil
	}
	a, err := t.loadAttested(pk)
	if err == nil {
		if len(t.cache.attested) > 100000 {
			clear(t.cache.attested)
		}
		t.cache.attested[pk] = a
	}
	return a, err
}

func (t *tx) loadAttested(pk string) (attestedKey, error) {
	var a attestedKey
	var raw string
	err := t.QueryRow(`SELECT a.owner, a.conditions, EXISTS (SELECT 1 FROM devices d WHERE d.device = a.agent)
		FROM agents a WHERE a.agent = ?`, pk).Scan(&a.owner, &raw, &a.device)
	if errors.Is(err, sql.ErrNoRows) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	if a.conds, err = identity.ParseConditions(raw); err != nil {
		return a, err
	}
	err = t.QueryRow(`SELECT revoked_at FROM revocations WHERE owner = ? AND agent = ?`, a.owner, pk).Scan(&a.revokedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return a, nil
	}
	a.revoked = err == nil
	return a, err
}
