package client

import (
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Builders of hive's events. Each returns an unsigned event with the tags the
// hub expects (spec/channels.md); Client.Publish signs it. created_at is left
// 0, which Sign sets to now.

func ev(kind int, content string, tags ...nostr.Tag) nostr.Event {
	if tags == nil {
		tags = nostr.Tags{}
	}
	return nostr.Event{Kind: kind, Content: content, Tags: tags}
}

// AuthEvent is the NIP-42 answer to challenge for the hub at relayURL;
// authTag, if not nil, is the owner's NIP-OA tag of an agent or device key.
func AuthEvent(relayURL, challenge string, authTag nostr.Tag) nostr.Event {
	e := ev(kinds.Auth, "", nostr.Tag{"relay", relayURL}, nostr.Tag{"challenge", challenge})
	if authTag != nil {
		e.Tags = append(e.Tags, authTag)
	}
	return e
}

// Mention is a p tag that mentions pubkey (hex) in a message.
func Mention(pubkey string) nostr.Tag { return nostr.Tag{"p", pubkey, "", "mention"} }

// Message is a top-level message (kind 9) in channel, mentioning the given
// hex pubkeys.
func Message(channel, text string, mentions ...string) nostr.Event {
	e := ev(kinds.Message, text, nostr.Tag{"h", channel})
	for _, p := range mentions {
		e.Tags = append(e.Tags, Mention(p))
	}
	return e
}

// Reply answers parent in its channel with NIP-10 marked e tags: root is the
// parent's root, or the parent itself when it is top level. The parent's
// author is tagged with a reply marker.
func Reply(parent nostr.Event, text string, mentions ...string) nostr.Event {
	channel := parent.Tags.GetD()
	if h := parent.Tags.Find("h"); h != nil {
		channel = h[1]
	}
	root := parent.ID
	for _, t := range parent.Tags {
		if len(t) >= 4 && t[0] == "e" && t[3] == "root" {
			root = t[1]
		}
	}
	e := ev(kinds.Message, text, nostr.Tag{"h", channel}, nostr.Tag{"e", root, "", "root"})
	if root != parent.ID {
		e.Tags = append(e.Tags, nostr.Tag{"e", parent.ID, "", "reply"})
	}
	e.Tags = append(e.Tags, nostr.Tag{"p", parent.PubKey, "", "reply"})
	for _, p := range mentions {
		if p != parent.PubKey {
			e.Tags = append(e.Tags, Mention(p))
		}
	}
	return e
}

// ReplyTo returns the id of the message ev answers (its reply marker, else its
// root), or "" for a top-level message.
func ReplyTo(e nostr.Event) string { return kinds.ReplyTo(&e) }

// Visibility of a channel.
const (
	Open    = "open"
	Private = "private"
)

// ChannelCreate creates a stream channel with id and display name;
// visibility is Open or Private.
func ChannelCreate(id, name, visibility string) nostr.Event {
	if visibility == "" {
		visibility = Open
	}
	return ev(kinds.CreateGroup, "", nostr.Tag{"h", id}, nostr.Tag{"name", name}, nostr.Tag{"visibility", visibility})
}

// DMCreate creates a private DM channel with id between the author and the
// given hex pubkeys (1 to 8).
func DMCreate(id string, participants ...string) nostr.Event {
	e := ev(kinds.CreateGroup, "", nostr.Tag{"h", id}, nostr.Tag{"type", "dm"}, nostr.Tag{"visibility", Private})
	for _, p := range participants {
		e.Tags = append(e.Tags, nostr.Tag{"p", p})
	}
	return e
}

// DMChannelID is the channel id of the DM between two keys: the same for
// both, whoever creates it.
func DMChannelID(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return "dm-" + a[:16] + "-" + b[:16]
}

// ChannelEdit changes a channel's name, about or visibility; empty values are left out.
func ChannelEdit(id, name, about, visibility string) nostr.Event {
	e := ev(kinds.EditMetadata, "", nostr.Tag{"h", id})
	for _, kv := range [][2]string{{"name", name}, {"about", about}, {"visibility", visibility}} {
		if kv[1] != "" {
			e.Tags = append(e.Tags, nostr.Tag{kv[0], kv[1]})
		}
	}
	return e
}

// ChannelJoin joins an open channel.
func ChannelJoin(id string) nostr.Event { return ev(kinds.JoinRequest, "", nostr.Tag{"h", id}) }

// ChannelLeave leaves a channel.
func ChannelLeave(id string) nostr.Event { return ev(kinds.LeaveRequest, "", nostr.Tag{"h", id}) }

// ChannelAdd adds pubkey (hex) to a channel, or sets its role: owner, admin,
// member (default when empty), guest or bot.
func ChannelAdd(id, pubkey, role string) nostr.Event {
	p := nostr.Tag{"p", pubkey}
	if role != "" {
		p = append(p, role)
	}
	return ev(kinds.AddUser, "", nostr.Tag{"h", id}, p)
}

// ChannelRemove removes pubkey (hex) from a channel.
func ChannelRemove(id, pubkey string) nostr.Event {
	return ev(kinds.RemoveUser, "", nostr.Tag{"h", id}, nostr.Tag{"p", pubkey})
}

// ChannelArchive archives a channel: readable as before, closed to writes.
func ChannelArchive(id string) nostr.Event { return ev(kinds.DeleteGroup, "", nostr.Tag{"h", id}) }

// MemberAdd admits pubkey (hex) to the hub (NIP-43; a hub admin signs it).
func MemberAdd(pubkey string) nostr.Event { return ev(kinds.HubMemberAdd, "", nostr.Tag{"p", pubkey}) }

// MemberRemove removes pubkey (hex) from the hub, with its agents.
func MemberRemove(pubkey string) nostr.Event {
	return ev(kinds.HubMemberRemove, "", nostr.Tag{"p", pubkey})
}

// Reaction reacts to target with content ("+", an emoji, ...).
func Reaction(target nostr.Event, content string) nostr.Event {
	e := ev(kinds.Reaction, content, nostr.Tag{"p", target.PubKey}, nostr.Tag{"e", target.ID})
	if h := target.Tags.Find("h"); h != nil {
		e.Tags = append(nostr.Tags{{"h", h[1]}}, e.Tags...)
	}
	return e
}

// Edit replaces the text of message target (its author or the author's owner signs it).
func Edit(target nostr.Event, text string) nostr.Event {
	return ev(kinds.Edit, text, nostr.Tag{"h", channelOf(target)}, nostr.Tag{"e", target.ID})
}

// Delete removes target from its channel's timeline (kind 9005: by the
// author, the author's owner or a channel admin).
func Delete(target nostr.Event, reason string) nostr.Event {
	return ev(kinds.DeleteInChannel, reason, nostr.Tag{"h", channelOf(target)}, nostr.Tag{"e", target.ID})
}

// Retract is a NIP-09 deletion (kind 5) of the signer's own events, such as a reaction.
func Retract(ids ...string) nostr.Event {
	e := ev(kinds.Deletion, "")
	for _, id := range ids {
		e.Tags = append(e.Tags, nostr.Tag{"e", id})
	}
	return e
}

func channelOf(e nostr.Event) string {
	if h := e.Tags.Find("h"); h != nil {
		return h[1]
	}
	return ""
}

// ChannelOf is the channel id (h tag) of an event, or "".
func ChannelOf(e nostr.Event) string { return channelOf(e) }
