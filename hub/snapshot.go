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
	if ch.members {
		return h.memberLists(t, int64(trigger.CreatedAt))
	}
	c, err := t.channel(ch.channel)
	if err != nil || c == nil {
		return nil, err
	}
	at, err := h.stateClock(t, c.id, int64(trigger.CreatedAt))
	if err != nil {
		return nil, err
	}
	var out []*nostr.Event
	sign := func(kind int, content string, tags nostr.Tags, when int64) error {
		ev, err := h.sign(kind, content, tags, when)
		out = append(out, ev)
		return err
	}
	if ch.meta {
		if err := sign(kinds.GroupMetadata, "", groupMetaTags(c), at); err != nil {
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

// stateClock is the created_at of key's next snapshot, strictly after its
// last one (so a replaceable snapshot always replaces the one before), and
// records it. key is a channel id, or "" for the hub's member lists.
func (h *Hub) stateClock(t *tx, key string, trigger int64) (int64, error) {
	var last int64
	t.QueryRow(`SELECT at FROM state_clock WHERE channel = ?`, key).Scan(&last)
	at := max(h.now().Unix(), last+1, trigger)
	_, err := t.Exec(`INSERT INTO state_clock (channel, at) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET at = excluded.at`, key, at)
	return at, err
}

// sign makes an event signed by the hub's key.
func (h *Hub) sign(kind int, content string, tags nostr.Tags, at int64) (*nostr.Event, error) {
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content, Tags: tags}
	return ev, ev.Sign(h.keys.SecretHex)
}
