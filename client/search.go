package client

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/ainb/hive/kinds"
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

// SearchHit is one search result: the message as a Row (edits applied), the
// names of its channel and author, and an excerpt of its current text with
// the matches marked [like this].
type SearchHit struct {
	Row
	ChannelName string `json:"channel_name,omitempty"`
	AuthorName  string `json:"author_name,omitempty"`
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
	rows, err := c.applyOverlays(ctx, evs)
	if err != nil {
		return nil, err
	}
	var chans, authors []string
	for _, r := range rows {
		chans, authors = append(chans, r.Channel), append(authors, r.Author)
	}
	chNames, err := c.channelNames(ctx, chans)
	if err != nil {
		return nil, err
	}
	names, err := c.profileNames(ctx, authors)
	if err != nil {
		return nil, err
	}
	out := make([]SearchHit, len(rows))
	for i, r := range rows {
		out[i] = SearchHit{Row: r, ChannelName: chNames[r.Channel], AuthorName: names[r.Author], Excerpt: q.Excerpt(r.Text, 24)}
	}
	return out, nil
}

// channelNames maps channel ids to their names.
func (c *Client) channelNames(ctx context.Context, ids []string) (map[string]string, error) {
	chans, err := c.channels(ctx, uniq(ids))
	out := map[string]string{}
	for _, ch := range chans {
		out[ch.ID] = ch.Name
	}
	return out, err
}

// profileNames maps pubkeys to the name (else display_name) of their kind 0.
func (c *Client) profileNames(ctx context.Context, pks []string) (map[string]string, error) {
	evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Authors: uniq(pks), Limit: len(pks)})
	out := map[string]string{}
	for _, e := range evs {
		var p struct {
			Name        string `json:"name"`
			DisplayName string `json:"display_name"`
		}
		if json.Unmarshal([]byte(e.Content), &p) == nil {
			out[e.PubKey] = p.Name
			if p.Name == "" {
				out[e.PubKey] = p.DisplayName
			}
		}
	}
	return out, err
}

func uniq(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// Around returns the rows of id's channel around it, oldest first: up to
// n rows before it, the row itself, and up to n after (overlays applied), so
// a search hit can be read in its context.
func (c *Client) Around(ctx context.Context, id string, n int) ([]Row, error) {
	target, err := c.Event(ctx, id)
	if err != nil {
		return nil, err
	}
	ch, at := ChannelOf(target), target.CreatedAt
	f := nostr.Filter{Kinds: ContentKinds(), Tags: nostr.TagMap{"h": {ch}}, Until: &at, Limit: n + 50}
	before, err := c.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	f.Until, f.Since, f.Limit = nil, &at, 5000
	after, err := c.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	var older, newer []nostr.Event
	seen := map[string]bool{target.ID: true}
	for _, e := range append(before, after...) {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		if e.CreatedAt < at || (e.CreatedAt == at && e.ID < target.ID) {
			older = append(older, e)
		} else {
			newer = append(newer, e)
		}
	}
	byTime := func(a, b nostr.Event) int {
		if a.CreatedAt != b.CreatedAt {
			return int(a.CreatedAt - b.CreatedAt)
		}
		return strings.Compare(a.ID, b.ID)
	}
	slices.SortFunc(older, byTime)
	slices.SortFunc(newer, byTime)
	older, newer = older[max(0, len(older)-n):], newer[:min(n, len(newer))]
	return c.applyOverlays(ctx, append(append(older, target), newer...))
}
