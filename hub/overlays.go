package hub

import (
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Overlays modify an existing row: 7 reaction, 40003 edit, 9005 delete in
// channel, 5 deletion (NIP-09).
func overlayRules(rs ruleSet) {
	rs.add((*tx).reaction, kinds.Reaction)
	rs.add((*tx).edit, kinds.Edit)
	rs.add((*tx).deleteInChannel, kinds.DeleteInChannel)
	rs.add((*tx).deletion, kinds.Deletion)
}

// target loads an overlay's target (its last e tag) and checks it shares the
// overlay's channel, if the overlay names one. It returns the target's channel.
func (t *tx) target(ev *nostr.Event) (*nostr.Event, string, error) {
	id := ev.Tags.FindLast("e")[1] // required by the kinds table
	target, err := t.event(id)
	if err != nil {
		return nil, "", err
	}
	if target == nil {
		return nil, "", notStored(id, "invalid: target event %s is not on this hub", id)
	}
	ch := tagValue(target, "h")
	if h := tagValue(ev, "h"); h != "" && h != ch {
		return nil, "", reject("invalid: target event is in channel %q, not %q", ch, h)
	}
	return target, ch, nil
}

// writable applies the channel write rule to the target's channel, if any
// (for overlays whose h is optional).
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

// reaction: one active reaction per (target, author, content).
func (t *tx) reaction(ev *nostr.Event) (*change, error) {
	target, ch, err := t.target(ev)
	if err != nil {
		return nil, err
	}
	if err := t.writable(ch, t.by); err != nil {
		return nil, err
	}
	res, err := t.Exec(`INSERT INTO reactions (target, author, content, event_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		target.ID, t.by, ev.Content, ev.ID)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, reject("duplicate: you already reacted %q to this event", ev.Content)
	}
	return nil, nil
}

// edit: by the target's author or the author's owner. Its h is the target's
// channel, which checkEvent found writable.
func (t *tx) edit(ev *nostr.Event) (*change, error) {
	target, _, err := t.target(ev)
	if err != nil {
		return nil, err
	}
	ok, err := t.authorOrOwner(target, ev.PubKey)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, reject("restricted: only the author or the author's owner may edit this message")
	}
	return nil, nil
}

// deleteInChannel: by the target's author, the author's owner or a channel
// owner or admin.
func (t *tx) deleteInChannel(ev *nostr.Event) (*change, error) {
	target, ch, err := t.target(ev)
	if err != nil {
		return nil, err
	}
	ok, err := t.authorOrOwner(target, ev.PubKey)
	if err != nil || ok {
		return nil, err
	}
	r, err := t.role(ch, t.by)
	if err != nil {
		return nil, err
	}
	if !r.atLeast(roleAdmin) {
		return nil, reject("restricted: only the author, the author's owner or a channel admin may delete this message")
	}
	return nil, nil
}

// deletion (NIP-09): a deletion may name only its signer's own events, by
// id or by address (an owner or channel admin deletes with 9005 instead);
// ids the hub does not have are let through (the store only ever removes
// the signer's own events). The hub refuses to delete the events its
// lasting state is built from, by id or by address however spelled, and
// undoes the effect of the state events it lets go. All targets are checked
// before any projection row changes.
func (t *tx) deletion(ev *nostr.Event) (*change, error) {
	var ids []string
	profileGone := false
	for _, tg := range ev.Tags {
		if len(tg) < 2 {
			continue
		}
		switch tg[0] {
		case "e":
			ids = append(ids, tg[1])
		case "a":
			addr, err := kinds.ParseAddress(tg[1])
			if err != nil {
				return nil, reject("invalid: %v", err)
			}
			if addr.PubKey != ev.PubKey {
				return nil, notYours("address " + tg[1])
			}
			if kinds.Classify(addr.Kind).Undeletable() {
				return nil, hubState(addr.Kind)
			}
			if addr.Kind == kinds.Profile && addr.D == "" {
				gone, err := t.profileAtOrBefore(ev.PubKey, int64(ev.CreatedAt))
				if err != nil {
					return nil, err
				}
				profileGone = profileGone || gone
			}
		}
	}
	// The named events, whoever wrote them, in one pass.
	named, err := store.AuthorsOf(t, ids)
	if err != nil {
		return nil, err
	}
	var reactions, gone []string
	for _, id := range ids {
		a, ok := named[id]
		switch {
		case !ok:
			continue
		case a.PubKey != ev.PubKey:
			return nil, notYours(id)
		case kinds.Classify(a.Kind).Undeletable():
			return nil, hubState(a.Kind)
		case a.Kind == kinds.Reaction:
			reactions = append(reactions, id)
		case a.Kind == kinds.Profile:
			profileGone = true
		}
		gone = append(gone, id)
	}
	// A deleted reaction frees its slot; the reactions to a deleted event go
	// with it (a replay of the log finds their target gone).
	for _, id := range reactions {
		if _, err := t.Exec(`DELETE FROM reactions WHERE event_id = ?`, id); err != nil {
			return nil, err
		}
	}
	for _, id := range gone {
		if _, err := t.Exec(`DELETE FROM reactions WHERE target = ?`, id); err != nil {
			return nil, err
		}
	}
	if profileGone {
		return nil, t.setAgent(ev.PubKey, nil, false)
	}
	return nil, nil
}

// notYours refuses a deletion naming what another key signed.
func notYours(what string) error {
	return reject("restricted: a deletion may name only your own events; %s is another member's (the author's owner or a channel admin deletes it with kind 9005)", what)
}

// hubState refuses a deletion naming an event the hub's lasting state is
// built from.
func hubState(kind int) error {
	return reject("invalid: kind %d is hub state and cannot be deleted; undo it with its own kind instead", kind)
}
