package agentbridge

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
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
