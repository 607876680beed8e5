package hub

import (
	"slices"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// state is what the write rules read. The write transaction implements it for
// stored kinds and the in-memory view for ephemeral ones, so both obey the
// same code.
type state interface {
	// channel returns a copy of the channel's row, or nil if there is none.
	channel(id string) (*channel, error)
	// role is pk's role in the channel, noRole if pk is not a member.
	role(channel, pk string) (role, error)
	// ownerOf is the NIP-OA owner recorded for an agent key, or "".
	ownerOf(agent string) (string, error)
	// attested is what the log says of an attested key (zero if none).
	attested(pk string) (attestedKey, error)
}

// sender is who sent an event: its key; for an agent or device, the owner
// whose attestation it authenticated with ("" for a member); and the member
// it acts as (actsAs: a live device's owner, else its key).
type sender struct{ pubkey, owner, as string }

// checkEvent runs the rules every client event obeys, stored or ephemeral,
// before the rules of its own kind.
func checkEvent(s state, ev *nostr.Event, from sender) error {
	if from.as == "" {
		from.as = ev.PubKey
	}
	k := kinds.Classify(ev.Kind)
	if k.HubSigned {
		return reject("restricted: kind %d is signed by the hub only", ev.Kind)
	}
	for _, req := range k.RequiredTags {
		if !slices.ContainsFunc(strings.Split(req, "|"), func(n string) bool { return tagValue(ev, n) != "" }) {
			return reject("invalid: kind %d needs a %q tag with a value", ev.Kind, req)
		}
	}
	if k.IsState() && ev.Tags.Find("expiration") != nil {
		return reject("invalid: kind %d changes hub state and cannot carry a NIP-40 expiration", ev.Kind)
	}
	if err := checkChannelTag(s, ev, from.as); err != nil {
		return err
	}
	if k.Gate == kinds.RecipientOnly {
		return checkRecipient(s, ev, from)
	}
	return nil
}

// managesChannel lists the kinds whose own rules decide who may use them on
// a channel (joining, leaving, creating, administering).
var managesChannel = map[int]bool{kinds.AddUser: true, kinds.RemoveUser: true, kinds.EditMetadata: true,
	kinds.CreateGroup: true, kinds.DeleteGroup: true, kinds.JoinRequest: true, kinds.LeaveRequest: true}

// checkChannelTag: an event names at most one channel; the one it names must
// exist, and the author (as the member it acts as) must be able to write there.
func checkChannelTag(s state, ev *nostr.Event, as string) error {
	var h nostr.Tag
	n := 0
	for _, tg := range ev.Tags {
		if len(tg) >= 1 && tg[0] == "h" {
			h, n = tg, n+1
		}
	}
	switch {
	case n == 0:
		return nil
	case n > 1:
		return reject("invalid: an event belongs to at most one channel; this one has %d h tags", n)
	case len(h) < 2 || h[1] == "":
		return reject("invalid: the h tag needs a channel id")
	case managesChannel[ev.Kind]:
		return nil
	}
	c, err := s.channel(h[1])
	if err != nil {
		return err
	}
	if c == nil {
		return reject("invalid: channel %q does not exist (create it with kind 9007)", h[1])
	}
	return mayWrite(s, c, as)
}

// mayWrite: archived channels take no writes; open streams take them from
// every admitted key; private channels and DMs from their members.
func mayWrite(s state, c *channel, pk string) error {
	if c.deleted {
		return reject("restricted: channel %s is archived", c.id)
	}
	if c.open() {
		return nil
	}
	role, err := s.role(c.id, pk)
	if err != nil {
		return err
	}
	if role == noRole {
		return reject("restricted: not a member of channel %s", c.id)
	}
	return nil
}

// checkRecipient: a recipient-only kind goes to exactly one p; an observer
// frame obeys checkObserverFrame.
func checkRecipient(s state, ev *nostr.Event, from sender) error {
	var to []string
	for _, tg := range ev.Tags {
		if len(tg) >= 2 && tg[0] == "p" {
			to = append(to, tg[1])
		} else if len(tg) == 1 && tg[0] == "p" {
			to = append(to, "")
		}
	}
	if len(to) != 1 || !nostr.IsValid32ByteHex(to[0]) {
		return reject("invalid: kind %d goes to exactly one recipient: one p tag with a 64-character hex pubkey", ev.Kind)
	}
	if ev.Kind != kinds.ObserverFrame {
		return nil
	}
	return checkObserverFrame(s, ev, from, to[0])
}
