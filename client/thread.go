package client

import (
	"context"
	"slices"

	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// threadScan bounds the replies LoadThread reads.
const threadScan = 500

// LoadThread loads into m the thread of root in channel: the root, up to
// 500 of its newest replies, their overlays and their keys' names. It
// returns the events loaded. The root, its replies and the root's overlays
// come in one REQ; the replies' overlays and the deletions of the root's
// in a second.
func (c *Client) LoadThread(ctx context.Context, m *chat.Model, channel, root string) ([]nostr.Event, error) {
	got, err := c.Query(ctx,
		nostr.Filter{Kinds: TimelineKinds(), Tags: nostr.TagMap{"e": {root}, "h": {channel}}, Limit: threadScan},
		nostr.Filter{IDs: []string{root}},
		overlaysOf([]string{root}))
	if err != nil {
		return nil, err
	}
	timeline := TimelineKinds()
	var evs, ofRoot []nostr.Event
	var replies []string
	for _, ev := range got {
		switch {
		case ev.ID == root:
			evs = append(evs, ev)
		case slices.Contains(timeline, ev.Kind):
			evs = append(evs, ev)
			replies = append(replies, ev.ID)
		default:
			ofRoot = append(ofRoot, ev)
		}
	}
	for i := range evs {
		m.Apply(&evs[i])
	}
	var overlays []string
	for i := range ofRoot {
		overlays = appendOverlay(overlays, m, &ofRoot[i])
	}
	if err := c.loadOverlays(ctx, m, replies, overlays); err != nil {
		return nil, err
	}
	return evs, c.LoadNames(ctx, m, KeysShown(evs)...)
}
