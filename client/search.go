package client

import (
	"context"
	"fmt"
	"slices"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// SearchOptions narrow a search. Channel is a channel id (ResolveChannel
// turns a name into one); Authors are hex pubkeys; Limit bounds the results
// (0: 20). The query itself may also say from:NAME and in:CHANNEL.
type SearchOptions struct {
	Channel string
	Authors []string
	Limit   int
}

// SearchHit is one search result: the message as the chat model shows it
// (edits applied), its channel's name, its author as shown, and an excerpt
// of its current text with the matches marked [like this].
type SearchHit struct {
	chat.Row
	ChannelName string `json:"channel_name,omitempty"`
	Name        string `json:"name"`  // the author as shown (a device as its owner)
	Label       string `json:"label"` // with the device's name where it is one
	Excerpt     string `json:"excerpt"`
}

// Search runs a NIP-50 search (spec/protocol.md) as the client's key: the
// best matches first, among the messages the hub lets it read. Bad query
// syntax is the hub's refusal (a *RefusedError, invalid: search: ...).
func (c *Client) Search(ctx context.Context, query string, o SearchOptions) ([]SearchHit, error) {
	if o.Limit <= 0 {
		o.Limit = 20
	}
	f := nostr.Filter{Kinds: ContentKinds(), Search: query, Authors: o.Authors, Limit: o.Limit}
	if o.Channel != "" {
		f.Tags = nostr.TagMap{"h": {o.Channel}}
	}
	evs, err := c.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	q, err := store.ParseSearch(query)
	if err != nil || len(evs) == 0 {
		return nil, err // the hub parsed it already: only an empty answer gets here
	}
	m := c.NewModel()
	for i := range evs {
		m.Apply(&evs[i])
	}
	if err := c.LoadOverlays(ctx, m, evs); err != nil {
		return nil, err
	}
	if err := c.LoadNames(ctx, m, KeysShown(evs)...); err != nil {
		return nil, err
	}
	var chans []string
	for _, e := range evs {
		chans = append(chans, ChannelOf(e))
	}
	names, err := c.channelNames(ctx, chans)
	if err != nil {
		return nil, err
	}
	out := make([]SearchHit, 0, len(evs))
	for _, e := range evs { // in the hub's order: best first
		r, ok := m.Row(e.ID)
		if !ok || r.Deleted {
			continue // deleted since the hub answered
		}
		n := m.Names()
		out = append(out, SearchHit{Row: r, ChannelName: names[r.Channel], Name: n.Name(r.Author), Label: n.Label(r.Author), Excerpt: q.Excerpt(m.Text(r), 24)})
	}
	return out, nil
}

// channelNames maps channel ids to their names.
func (c *Client) channelNames(ctx context.Context, ids []string) (map[string]string, error) {
	chans, err := c.channels(ctx, sortedUniq(ids))
	out := map[string]string{}
	for _, ch := range chans {
		out[ch.ID] = ch.Name
	}
	return out, err
}

// sortedUniq is ids sorted, each once.
func sortedUniq(ids []string) []string {
	out := append([]string(nil), ids...)
	slices.Sort(out)
	return slices.Compact(out)
}

// Around loads the rows of id's channel around it into a new chat model:
// up to n rows before it, the row itself and up to n after, in timeline
// order, so a search hit can be read in its context.
func (c *Client) Around(ctx context.Context, id string, n int) (Page, error) {
	target, err := c.Event(ctx, id)
	if err != nil {
		return Page{}, err
	}
	ch, at := ChannelOf(target), target.CreatedAt
	m := c.NewModel()
	if _, err := c.pageBefore(ctx, m, ch, n, &at, target.ID); err != nil {
		return Page{}, err
	}
	after, err := c.Query(ctx, nostr.Filter{Kinds: TimelineKinds(), Tags: nostr.TagMap{"h": {ch}}, Since: &at, Limit: 5000})
	if err != nil {
		return Page{}, err
	}
	m.ApplyAll(after)
	if err := c.LoadOverlays(ctx, m, after); err != nil {
		return Page{}, err
	}
	if err := c.LoadNames(ctx, m, KeysShown(after)...); err != nil {
		return Page{}, err
	}
	rows := m.Timeline(ch)
	for i, r := range rows {
		if r.ID == target.ID {
			return Page{Model: m, Rows: rows[max(0, i-n):min(len(rows), i+n+1)]}, nil
		}
	}
	return Page{}, wrap(ErrNotFound, fmt.Errorf("message %s is deleted", target.ID[:8]))
}
