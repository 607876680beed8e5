package hub

import (
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Threads: kind 9 messages with NIP-10 marked e tags.
func threadRules(rs ruleSet) {
	rs.add((*tx).message, kinds.Message)
}

// message: checkEvent already ran the channel rule on its h. Every e tag
// needs a root or reply marker; the parent (reply, else root) must be stored
// or earlier in the same commit batch, in the same channel, and the root
// must be the parent's root.
func (t *tx) message(ev *nostr.Event) (*change, error) {
	c, err := t.existingChannel(ev)
	if err != nil {
		return nil, err
	}
	var root, parent string
	for tg := range ev.Tags.FindAll("e") {
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
			return nil, reject("invalid: thread e tags need a NIP-10 root or reply marker")
		}
	}
	if root == "" && parent == "" {
		return nil, nil
	}
	if parent == "" {
		parent = root
	}
	p, err := t.event(parent)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, notStored(parent, "invalid: thread parent %s is not on this hub", parent)
	}
	if tagValue(p, "h") != c.id {
		return nil, reject("invalid: thread parent %s is not in channel %s", parent, c.id)
	}
	want := kinds.ThreadRoot(p)
	if root == "" && want != p.ID {
		return nil, reject("invalid: a reply to a reply needs a root-marked e tag for %s", want)
	}
	if root != "" && root != want {
		return nil, reject("invalid: thread root %s does not match the parent's root %s", root, want)
	}
	return nil, nil
}
