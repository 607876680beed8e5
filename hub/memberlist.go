package hub

import (
	"context"
	"slices"
	"sort"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// The hub's member list as clients read it, signed by the hub's key and
// kept current: kind 13534 (NIP-43: `-` and one `member` tag per hub
// member, the configured admin included) and kind 19004 (one `p` tag per
// key that may create channels, which NIP-29 clients read to offer "create
// room": every hub member). Both are re-signed in the transaction of every
// 8000/8001, and at start when the configured admin changed.

// memberListKey is the state clock's key of the member lists (no channel id
// is empty).
const memberListKey = ""

// memberLists signs fresh 13534 and 19004 from the hub_members table.
func (h *Hub) memberLists(t *tx, trigger int64) ([]*nostr.Event, error) {
	members, err := hubMemberKeys(t, h.admin)
	if err != nil {
		return nil, err
	}
	at, err := h.stateClock(t, memberListKey, trigger)
	if err != nil {
		return nil, err
	}
	return h.signMemberLists(members, at)
}

func (h *Hub) signMemberLists(members []string, at int64) ([]*nostr.Event, error) {
	list, err := h.sign(kinds.HubMemberList, "", memberListTags(members), at)
	if err != nil {
		return nil, err
	}
	creators, err := h.sign(kinds.CreatePermission, "", creatorTags(members), at)
	return []*nostr.Event{list, creators}, err
}

func memberListTags(members []string) nostr.Tags {
	tags := nostr.Tags{{"-"}}
	for _, pk := range members {
		tags = append(tags, nostr.Tag{"member", pk})
	}
	return tags
}

func creatorTags(members []string) nostr.Tags {
	tags := nostr.Tags{}
	for _, pk := range members {
		tags = append(tags, nostr.Tag{"p", pk})
	}
	return tags
}

// hubMemberKeys are the hub's members, sorted: the configured admin and
// every key the hub_members table holds.
func hubMemberKeys(r store.Reader, admin string) ([]string, error) {
	rows, err := r.Query(`SELECT pubkey FROM hub_members`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{admin}
	for rows.Next() {
		var pk string
		if err := rows.Scan(&pk); err != nil {
			return nil, err
		}
		if pk != admin {
			out = append(out, pk)
		}
	}
	sort.Strings(out)
	return out, rows.Err()
}

// announceMembers signs the member lists at start when the stored ones do
// not name the members the tables hold (a first start, another --admin, a
// log written before the lists existed).
func (h *Hub) announceMembers(ctx context.Context) error {
	if h.keys.SecretHex == "" {
		return nil
	}
	members, err := hubMemberKeys(h.Store.Reader(), h.admin)
	if err != nil {
		return err
	}
	stored, err := h.Store.Query(ctx, nostr.Filter{Kinds: []int{kinds.HubMemberList, kinds.CreatePermission}, Authors: []string{h.keys.PublicHex}})
	if err != nil {
		return err
	}
	current := 0
	for _, ev := range stored {
		want := memberListTags(members)
		if ev.Kind == kinds.CreatePermission {
			want = creatorTags(members)
		}
		if slices.EqualFunc(ev.Tags, want, slices.Equal) {
			current++
		}
	}
	if current == 2 {
		return nil
	}
	var at int64
	if err := h.Store.Exec(ctx, func(w store.WriteTx) error {
		var err error
		at, err = h.stateClock(&tx{WriteTx: w}, memberListKey, 0)
		return err
	}); err != nil {
		return err
	}
	evs, err := h.signMemberLists(members, at)
	if err != nil {
		return err
	}
	for _, ev := range evs {
		if _, err := h.Store.Publish(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}
