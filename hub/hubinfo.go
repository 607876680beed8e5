package hub

import (
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// The hub's name, description and icon as its NIP-11 document shows them:
// kind 30461 events the hub writes on a hub admin's NIP-86 call
// (changerelayname, changerelaydescription, changerelayicon; nip86.go), one
// per field (`d`), projected into hub_info. A field no call has set shows
// what `hive serve` was configured with.

func hubInfoRules(rs ruleSet) { rs.add((*tx).hubInfo, kinds.HubInfo) }

func (t *tx) hubInfo(ev *nostr.Event) (*change, error) {
	if ev.Tags.Find(tagAuthorization) == nil {
		return nil, reject("restricted: kind %d is written by the hub on a hub admin's NIP-86 call (changerelayname, changerelaydescription, changerelayicon)", ev.Kind)
	}
	if _, err := t.authorizedAdmin(ev); err != nil {
		return nil, err
	}
	field := tagValue(ev, "d")
	if _, err := t.Exec(`INSERT INTO hub_info (field, value) VALUES (?, ?)
		ON CONFLICT (field) DO UPDATE SET value = excluded.value`, field, ev.Content); err != nil {
		return nil, err
	}
	t.note(func(e *viewEdit) { e.setInfo(field, ev.Content) })
	return nil, nil
}

// loadInfo reads hub_info into the view.
func loadInfo(db store.Reader, v *view) error {
	rows, err := db.Query(`SELECT field, value FROM hub_info`)
	if err != nil {
		return err
	}
	defer rows.Close()
	v.info = map[string]string{}
	for rows.Next() {
		var f, val string
		if err := rows.Scan(&f, &val); err != nil {
			return err
		}
		v.info[f] = val
	}
	return rows.Err()
}

func (e *viewEdit) setInfo(field, value string) {
	info := make(map[string]string, len(e.next.info)+1)
	for k, v := range e.next.info {
		info[k] = v
	}
	info[field] = value
	e.next.info = info
}

// describe is the relay's NIP-11 hook: the fields NIP-86 calls have set
// over the configured ones.
func (h *Hub) describe(name, description, icon string) (string, string, string) {
	info := h.snapshotView().info
	if v, ok := info["name"]; ok && v != "" {
		name = v
	}
	if v, ok := info["description"]; ok {
		description = v
	}
	if v, ok := info["icon"]; ok {
		icon = v
	}
	return name, description, icon
}
