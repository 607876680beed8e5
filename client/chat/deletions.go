package chat

import (
	"slices"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// deleteTargets applies a 9005 (its one e tag; the hub has checked that its
// signer may delete there) or a kind 5 (each e tag, only what its own
// signer wrote: see retracts). A deleted overlay (a retracted reaction or
// edit) stops counting.
func (m *Model) deleteTargets(ev *nostr.Event) []Change {
	var ids []string
	if ev.Kind == kinds.DeleteInChannel {
		if t := targetOf(ev); t != "" {
			ids = append(ids, t)
		}
	} else {
		for _, t := range ev.Tags {
			if len(t) >= 2 && t[0] == "e" {
				ids = append(ids, t[1])
			}
		}
	}
	out := m.changes[:0]
	for _, id := range ids {
		if m.gone[id] || ev.Kind == kinds.Deletion && !m.retracts(id, ev.PubKey) {
			continue
		}
		m.gone[id] = true
		if o := m.overlays[id]; o != nil {
			out = append(out, m.change(overlayOp(o.kind), o.target, channelOf(ev)))
			continue
		}
		out = append(out, m.change(Deleted, id, channelOf(ev)))
	}
	if len(out) == 0 {
		return m.report(Change{Op: Ignored, ID: ev.ID})
	}
	m.changes = out
	return out
}

// retracts reports whether a kind 5 signed by by removes id now: only its
// author's (a NIP-09 deletion names only the signer's own events; the hub
// refuses others, and the model does not rely on that alone). A target not
// loaded yet holds the deletion until it arrives (judgeHeld).
func (m *Model) retracts(id, by string) bool {
	if r := m.rows[id]; r != nil {
		return r.author == by
	}
	if o := m.overlays[id]; o != nil {
		return o.author == by
	}
	if !slices.Contains(m.held[id], by) {
		m.held[id] = append(m.held[id], by)
	}
	return false
}

// judgeHeld applies the kind 5s held for id, now loaded with its author.
func (m *Model) judgeHeld(id, author string) {
	if by, ok := m.held[id]; ok {
		m.gone[id] = m.gone[id] || slices.Contains(by, author)
		delete(m.held, id)
	}
}
