package hub

import (
	"encoding/json"
	"strconv"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// snapshot signs fresh 39000/39001/39002 state for the channel and a 40099
// system row where a person would expect one.
func (h *Hub) snapshot(t *tx, trigger *nostr.Event, ch *change) ([]*nostr.Event, error) {
	c, err := t.channel(ch.channel)
	if err != nil || c == nil {
		return nil, err
	}
	var last int64
	t.QueryRow(`SELECT at FROM state_clock WHERE channel = ?`, c.id).Scan(&last)
	at := max(h.now().Unix(), last+1, int64(trigger.CreatedAt))
	if _, err := t.Exec(`INSERT INTO state_clock (channel, at) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET at = excluded.at`, c.id, at); err != nil {
		return nil, err
	}
	var out []*nostr.Event
	sign := func(kind int, content string, tags nostr.Tags, when int64) error {
		ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(when), Content: content, Tags: tags}
		if err := ev.Sign(h.keys.SecretHex); err != nil {
			return err
		}
		out = append(out, ev)
		return nil
	}
	if ch.meta {
		tags := nostr.Tags{{"d", c.id}, {"name", c.name}, {"about", c.about}, {"visibility", string(c.visibility)}, {"type", string(c.typ)}}
		if c.visibility == visOpen {
			tags = append(tags, nostr.Tag{"public"}, nostr.Tag{"open"})
		} else {
			tags = append(tags, nostr.Tag{"private"}, nostr.Tag{"closed"})
		}
		if c.deleted {
			tags = append(tags, nostr.Tag{"archived", "true"})
		}
		if err := sign(kinds.GroupMetadata, "", tags, at); err != nil {
			return nil, err
		}
	}
	if ch.roster {
		rows, err := t.Query(`SELECT pubkey, role FROM channel_members WHERE channel = ? ORDER BY pubkey`, c.id)
		if err != nil {
			return nil, err
		}
		admins, members := nostr.Tags{{"d", c.id}}, nostr.Tags{{"d", c.id}}
		for rows.Next() {
			var pk string
			var r role
			if err := rows.Scan(&pk, &r); err != nil {
				rows.Close()
				return nil, err
			}
			members = append(members, nostr.Tag{"p", pk, string(r)})
			if r.atLeast(roleAdmin) {
				admins = append(admins, nostr.Tag{"p", pk, string(r)})
			}
		}
		rows.Close()
		if err := sign(kinds.GroupAdmins, "", admins, at); err != nil {
			return nil, err
		}
		if err := sign(kinds.GroupMembers, "", members, at); err != nil {
			return nil, err
		}
	}
	if ch.system != "" {
		body, _ := json.Marshal(map[string]string{"type": ch.system, "actor": trigger.PubKey, "target": ch.target})
		tags := nostr.Tags{{"h", c.id}, {"e", trigger.ID}}
		if ch.target != "" {
			tags = append(tags, nostr.Tag{"p", ch.target})
		}
		if ms, ok := kinds.Millis(trigger.Tags); ok { // and by its milliseconds, as its change is
			tags = append(tags, nostr.Tag{kinds.MsTag, strconv.FormatInt(ms, 10)})
		}
		// The row is dated by what it reports, not by the state clock (which
		// moves the replaceable snapshots a second on when two changes share
		// one), so it sits among the messages where the change happened.
		if err := sign(kinds.SystemRow, string(body), tags, int64(trigger.CreatedAt)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
