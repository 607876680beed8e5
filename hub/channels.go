package hub

import (
	"regexp"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Channels (NIP-29 style): 9007 create, 9002 edit, 9008 archive.
func channelRules(rs ruleSet) {
	rs.add((*tx).createChannel, kinds.CreateGroup)
	rs.add((*tx).editChannel, kinds.EditMetadata)
	rs.add((*tx).archiveChannel, kinds.DeleteGroup)
}

var channelID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// maxDMParticipants is how many keys besides its creator a DM may hold.
const maxDMParticipants = 8

// existingChannel loads the channel named by ev's h tag.
func (t *tx) existingChannel(ev *nostr.Event) (*channel, error) {
	id := ev.Tags.Find("h")[1] // required by the kinds table
	c, err := t.channel(id)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, reject("invalid: channel %q does not exist (create it with kind 9007)", id)
	}
	return c, nil
}

func (t *tx) createChannel(ev *nostr.Event) (*change, error) {
	id := ev.Tags.Find("h")[1]
	if !channelID.MatchString(id) {
		return nil, reject("invalid: channel id must be 1-64 characters of A-Z a-z 0-9 _ . -")
	}
	if c, err := t.channel(id); err != nil {
		return nil, err
	} else if c != nil {
		return nil, reject("duplicate: channel %s already exists", id)
	}
	c := &channel{id: id, creator: t.by, visibility: visOpen,
		typ: channelType(orDefault(tagValue(ev, "type"), string(typeStream)))}
	if c.typ != typeStream && c.typ != typeDM {
		return nil, reject("invalid: type must be stream or dm")
	}
	if c.typ == typeDM {
		c.visibility = visPrivate // whatever it asks for (a DM is always private)
		if v := tagValue(ev, "visibility"); v != "" && v != string(visOpen) && v != string(visPrivate) {
			return nil, reject("invalid: visibility must be open or private")
		}
		c.name, c.about = tagValue(ev, "name"), tagValue(ev, "about")
	} else if err := applyGroupMeta(ev, c); err != nil {
		return nil, err
	}
	defaultName(c)
	var participants []string
	if c.typ == typeDM {
		seen := map[string]bool{t.by: true}
		for p := range ev.Tags.FindAll("p") {
			if seen[p[1]] {
				continue
			}
			if !nostr.IsValid32ByteHex(p[1]) {
				return nil, reject("invalid: DM participants must be 64-character hex pubkeys")
			}
			seen[p[1]] = true
			participants = append(participants, p[1])
		}
		if len(participants) < 1 || len(participants) > maxDMParticipants {
			return nil, reject("invalid: a DM needs 1 to %d other participants as p tags", maxDMParticipants)
		}
	}
	if err := t.putChannel(c); err != nil {
		return nil, err
	}
	if err := t.setRole(id, t.by, roleOwner); err != nil {
		return nil, err
	}
	for _, p := range participants {
		if err := t.setRole(id, p, roleMember); err != nil {
			return nil, err
		}
	}
	return &change{channel: id, meta: true, roster: true, system: "channel_created"}, nil
}

func (t *tx) editChannel(ev *nostr.Event) (*change, error) {
	c, actor, err := t.member(ev)
	if err != nil {
		return nil, err
	}
	if !actor.atLeast(roleAdmin) {
		return nil, reject("restricted: only a channel owner or admin may edit channel %s", c.id)
	}
	if err := applyGroupMeta(ev, c); err != nil {
		return nil, err
	}
	defaultName(c)
	return &change{channel: c.id, meta: true}, t.putChannel(c)
}

// archiveChannel: the channel stays readable; every later write is refused.
// No 39000-39002 is signed for it from then on, so a NIP-29 client, which
// hides a group whose newest 9008 is newer than its 39000, sees it gone;
// hive's own clients read the 9008. Archiving again is allowed.
func (t *tx) archiveChannel(ev *nostr.Event) (*change, error) {
	c, err := t.existingChannel(ev)
	if err != nil {
		return nil, err
	}
	actor, err := t.role(c.id, t.by)
	if err != nil {
		return nil, err
	}
	if actor != roleOwner {
		return nil, reject("restricted: only a channel owner may archive channel %s", c.id)
	}
	c.deleted = true
	return &change{channel: c.id, system: "channel_archived"}, t.putChannel(c)
}

// tagValue is the value of ev's first tag named name, or "".
func tagValue(ev *nostr.Event, name string) string {
	if tg := ev.Tags.Find(name); tg != nil {
		return tg[1]
	}
	return ""
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
