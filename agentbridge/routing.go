package agentbridge

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// MaxHops is the agent-to-agent hop limit: a bridge's reply carries
// ["hops", N+1] where N is the mention's hops (0 without the tag), and a
// mention with MaxHops or more is not answered.
const MaxHops = 3

// mentionOf decides whether ev is a mention of agent in a channel it is a
// member of (dm: every message counts). It returns the reason when not.
func mentionOf(ev *nostr.Event, agent string, channelType string, member bool) (Mention, string) {
	if ev.Kind != kinds.Message {
		return Mention{}, "not a message"
	}
	if ev.PubKey == agent {
		return Mention{}, "the agent's own event"
	}
	ch := tagValue(ev.Tags, "h")
	if ch == "" {
		return Mention{}, "no channel"
	}
	if !member {
		return Mention{}, "the agent is not a member of channel " + ch
	}
	if channelType != "dm" && !ev.Tags.ContainsAny("p", []string{agent}) {
		return Mention{}, notTagged
	}
	m := asMention(ev)
	if m.Hops >= MaxHops {
		return Mention{}, fmt.Sprintf("%s (%d)", hopLimit, m.Hops)
	}
	return m, ""
}

// Reasons of mentionOf that the bridge acts on.
const (
	notTagged = "does not mention the agent"
	hopLimit  = "hop limit reached"
)

// asMention is ev as a mention. It copies, so a queued mention never holds
// its decoded event's memory.
func asMention(ev *nostr.Event) Mention {
	hops, _ := strconv.Atoi(tagValue(ev.Tags, "hops"))
	return Mention{ID: strings.Clone(ev.ID), Channel: strings.Clone(tagValue(ev.Tags, "h")), Author: strings.Clone(ev.PubKey), Content: keepContent(ev.Content),
		At: ev.CreatedAt.Time(), Hops: hops, Root: strings.Clone(kinds.ThreadRoot(ev))}
}

func tagValue(tags nostr.Tags, name string) string {
	if t := tags.Find(name); len(t) >= 2 {
		return t[1]
	}
	return ""
}

// promptText renders a batch as prompt blocks, one per mention, after the
// context block when there is one; the newest mention is last and marked
// as the message to answer. name shows a key (display name and short npub).
func promptText(context string, batch []Mention, name func(pk string) string) []string {
	out := make([]string, 0, len(batch)+1)
	if context != "" {
		out = append(out, context)
	}
	for i, m := range batch {
		at := m.At.UTC().Format(time.RFC3339)
		if m.ID == "" {
			out = append(out, fmt.Sprintf("[message from your owner %s at %s, channel %s]\n%s", name(m.Author), at, m.Channel, m.Content))
			continue
		}
		mark := ""
		if i == len(batch)-1 {
			mark = " (the message to answer)"
		}
		out = append(out, fmt.Sprintf("[mention by %s at %s, channel %s%s, event %s]\n%s", name(m.Author), at, m.Channel, mark, m.ID, m.Content))
	}
	return out
}
