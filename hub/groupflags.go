package hub

import (
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// NIP-29's group metadata on a 9007 or 9002, mapped onto hive's two kinds
// of channel (spec/channels.md, "NIP-29 as clients send it"):
//
//   - open: every hub member reads it, writes in it and may join it; its
//     39000 carries no flag (NIP-29: no flag means public and open);
//   - private: only its members read and write it, nobody joins without
//     being added, and its metadata is hidden from everyone else; its 39000
//     carries `private`, `closed`, `hidden` and `restricted`.
//
// A flag that fits neither is refused with the reason, never accepted and
// ignored.

// groupFlags are the flag tags (one element) NIP-29 defines, and what
// hive makes of each.
var groupFlags = map[string]bool{"private": true, "public": true, "closed": true, "open": true, "hidden": true, "restricted": true}

// privateOnly are the flags only a private channel honours.
var privateOnly = []string{"closed", "hidden", "restricted"}

// unsupportedMeta are NIP-29 metadata tags hive has no place for, with why.
var unsupportedMeta = map[string]string{
	"livekit":         "hive has no live audio or video rooms",
	"banner":          "hive channels have no banner (name, about and picture are kept)",
	"supported_kinds": "a hive channel takes every kind its rules allow",
	"parent":          "hive has no subgroups",
	"child":           "hive has no subgroups",
}

// applyGroupMeta applies the metadata tags of a 9007 or 9002 to c: hive's
// own `visibility` and NIP-29's flags, `name`, `about` and `picture`. The
// flags `private`/`public` decide read access when present (a NIP-29 client
// copies the last 39000's tags, `visibility` among them, into its 9002);
// `visibility` counts when neither is. What is absent stays as it was.
func applyGroupMeta(ev *nostr.Event, c *channel) error {
	has := map[string]bool{}
	for _, tg := range ev.Tags {
		if len(tg) == 0 {
			continue
		}
		if why, ok := unsupportedMeta[tg[0]]; ok {
			return reject("invalid: %q: %s", tg[0], why)
		}
		if groupFlags[tg[0]] {
			has[tg[0]] = true
		}
	}
	if err := sameAsChannel(ev, c); err != nil {
		return err
	}
	if has["private"] && has["public"] {
		return reject("invalid: a channel is either private or public, not both")
	}
	if has["closed"] && has["open"] {
		return reject("invalid: a channel is either closed or open, not both")
	}
	next := c.visibility
	switch {
	case has["private"]:
		next = visPrivate
	case has["public"]:
		next = visOpen
	default:
		if v := visibility(tagValue(ev, "visibility")); v != "" {
			if v != visOpen && v != visPrivate {
				return reject("invalid: visibility must be open or private")
			}
			next = v
		}
	}
	if c.typ == typeDM && next != visPrivate {
		return reject("invalid: a DM stays private")
	}
	if next == visOpen {
		for _, f := range privateOnly {
			if has[f] {
				return reject(`invalid: hive cannot make an open channel %s: every hub member reads, writes and may join an open channel; send ["private"] to make it private (only its members read and write it, nobody joins without being added, and others do not see it)`, f)
			}
		}
	} else if has["open"] {
		return reject(`invalid: a private channel takes no join requests (its owner or admins add members with kind 9000), so hive cannot honour ["open"] on it; send ["public"] to open the channel to every hub member`)
	}
	c.visibility = next
	if tg := ev.Tags.Find("name"); tg != nil {
		c.name = tg[1]
	}
	if tg := ev.Tags.Find("about"); tg != nil {
		c.about = tg[1]
	}
	if tg := ev.Tags.Find("picture"); tg != nil {
		c.picture = tg[1]
	}
	return nil
}

// sameAsChannel accepts the tags a NIP-29 client copies from the channel's
// 39000 into its 9002 (`d`, `type`) when they describe c as it is, and
// refuses them when they would change what cannot change.
func sameAsChannel(ev *nostr.Event, c *channel) error {
	if tg := ev.Tags.Find("d"); tg != nil && tg[1] != c.id {
		return reject("invalid: the d tag %q names another channel than h %q", tg[1], c.id)
	}
	if tg := ev.Tags.Find("type"); tg != nil && c.typ != "" && channelType(tg[1]) != c.typ {
		return reject("invalid: channel %s is a %s; its type cannot change", c.id, c.typ)
	}
	if tg := ev.Tags.Find("archived"); tg != nil {
		return reject("invalid: archive a channel with kind 9008, not an archived tag")
	}
	return nil
}

// groupMetaTags are the tags of c's 39000: hive's own (`visibility`,
// `type`) and NIP-29's, which say the same.
func groupMetaTags(c *channel) nostr.Tags {
	tags := nostr.Tags{{"d", c.id}, {"name", c.name}, {"about", c.about}}
	if c.picture != "" {
		tags = append(tags, nostr.Tag{"picture", c.picture})
	}
	tags = append(tags, nostr.Tag{"visibility", string(c.visibility)}, nostr.Tag{"type", string(c.typ)})
	if c.visibility == visPrivate {
		tags = append(tags, nostr.Tag{"private"})
		for _, f := range privateOnly {
			tags = append(tags, nostr.Tag{f})
		}
	}
	return tags
}

// defaultName is a stream channel's name until a 9002 names it: NIP-29's
// create carries only `h`.
func defaultName(c *channel) {
	if c.typ == typeStream && strings.TrimSpace(c.name) == "" {
		c.name = c.id
	}
}
