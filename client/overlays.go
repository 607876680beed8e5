package client

import (
	"context"
	"fmt"
	"slices"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// LoadOverlays fetches the overlays of evs by #e, and the deletions of
// those overlays (a retracted reaction or edit), into m.
func (c *Client) LoadOverlays(ctx context.Context, m *chat.Model, evs []nostr.Event) error {
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	return c.loadOverlays(ctx, m, ids, nil)
}

// LoadEvent fetches the event id with its overlays into m, asking for the
// event and its overlays in one REQ (then the deletions of those overlays).
func (c *Client) LoadEvent(ctx context.Context, m *chat.Model, id string) (nostr.Event, error) {
	evs, err := c.Query(ctx, nostr.Filter{IDs: []string{id}}, overlaysOf([]string{id}))
	if err != nil {
		return nostr.Event{}, err
	}
	var found *nostr.Event
	for i := range evs {
		if evs[i].ID == id {
			found = &evs[i]
			m.Apply(found)
		}
	}
	if found == nil {
		return nostr.Event{}, wrap(ErrNotFound, fmt.Errorf("no event %s that you can read", id))
	}
	var overlays []string
	for i := range evs {
		if evs[i].ID != id {
			overlays = appendOverlay(overlays, m, &evs[i])
		}
	}
	return *found, c.loadOverlays(ctx, m, nil, overlays)
}

// overlaysOf is the filter of the overlays of the rows ids (by #e).
func overlaysOf(ids []string) nostr.Filter {
	return nostr.Filter{Kinds: OverlayKinds(), Tags: nostr.TagMap{"e": ids}, Limit: 5000}
}

// appendOverlay applies the overlay ev to m and appends its id to ids when
// a deletion may name it (a deletion itself is the last hop).
func appendOverlay(ids []string, m *chat.Model, ev *nostr.Event) []string {
	m.Apply(ev)
	if ev.Kind == kinds.Deletion || ev.Kind == kinds.DeleteInChannel {
		return ids
	}
	return append(ids, ev.ID)
}

// overlayChunk is how many ids one filter names, and overlayFilters how
// many filters one REQ holds (the hub's max_filters is 16 by default).
const (
	overlayChunk   = 500
	overlayFilters = 8
)

// loadOverlays loads into m the overlays of the rows ids (hop 0) and the
// deletions of the overlays ids (hop 1), both in the same REQ, then the
// deletions of the overlays hop 0 found.
func (c *Client) loadOverlays(ctx context.Context, m *chat.Model, rows, overlays []string) error {
	evs, err := fetchOverlays(ctx, c.Query, rows, overlays)
	for i := range evs {
		m.Apply(&evs[i])
	}
	return err
}

// fetchOverlays fetches what loadOverlays loads, as events.
func fetchOverlays(ctx context.Context, q Querier, rows, overlays []string) ([]nostr.Event, error) {
	var all []nostr.Event
	for len(rows) > 0 || len(overlays) > 0 {
		var fs []nostr.Filter
		for chunk := range slices.Chunk(rows, overlayChunk) {
			fs = append(fs, overlaysOf(chunk))
		}
		for chunk := range slices.Chunk(overlays, overlayChunk) {
			fs = append(fs, nostr.Filter{Kinds: []int{kinds.Deletion}, Tags: nostr.TagMap{"e": chunk}, Limit: 5000})
		}
		var next []string
		for req := range slices.Chunk(fs, overlayFilters) {
			o, err := q(ctx, req...)
			if err != nil {
				return all, fmt.Errorf("overlays: %w", err)
			}
			for _, ev := range o {
				if ev.Kind != kinds.Deletion && ev.Kind != kinds.DeleteInChannel {
					next = append(next, ev.ID) // a deletion may name it
				}
			}
			all = append(all, o...)
		}
		rows, overlays = nil, next
	}
	return all, nil
}
