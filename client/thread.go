package client

import (
	"context"

	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// threadScan bounds the replies LoadThread reads.
const threadScan = 500

// LoadThread loads into m the thread of root in channel: the root, up to
// 500 of its newest replies, their overlays and their keys' names. It
// returns the events loaded.
func (c *Client) LoadThread(ctx context.Context, m *chat.Model, channel, root string) ([]nostr.Event, error) {
	evs, err := c.Query(ctx, nostr.Filter{Kinds: TimelineKinds(), Tags: nostr.TagMap{"e": {root}, "h": {channel}}, Limit: threadScan})
	if err != nil {
		return nil, err
	}
	r, err := c.Query(ctx, nostr.Filter{IDs: []string{root}})
	if err != nil {
		return nil, err
	}
	evs = append(evs, r...)
	for i := range evs {
		m.Apply(&evs[i])
	}
	if err := c.LoadOverlays(ctx, m, evs); err != nil {
		return nil, err
	}
	return evs, c.LoadNames(ctx, m, KeysShown(evs)...)
}
