package client

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Row is a timeline row with its overlays applied.
type Row struct {
	ID        string          `json:"id"`
	Channel   string          `json:"channel"`
	Author    string          `json:"author"`
	CreatedAt nostr.Timestamp `json:"created_at"`
	Kind      int             `json:"kind"`
	Text      string          `json:"text"`
	Edited    bool            `json:"edited"`
	ReplyTo   string          `json:"reply_to,omitempty"`
	Mentions  []string        `json:"mentions,omitempty"`
	Reactions map[string]int  `json:"reactions,omitempty"`
}

// RowOf is a row for an event without overlays.
func RowOf(e nostr.Event) Row {
	r := Row{ID: e.ID, Channel: ChannelOf(e), Author: e.PubKey, CreatedAt: e.CreatedAt, Kind: e.Kind, Text: e.Content, ReplyTo: ReplyTo(e)}
	for _, t := range e.Tags {
		if len(t) >= 2 && t[0] == "p" && (len(t) < 4 || t[3] != "reply") {
			r.Mentions = append(r.Mentions, t[1])
		}
	}
	return r
}

// History returns up to limit rows of channel, oldest first, older than the
// row before (an id; "" for the newest), with the overlays fetched by #e over
// the loaded rows: edits shown, deleted rows left out, reactions counted.
// newest is the created_at of the newest row loaded, deleted or not (what a
// reader has seen, for read-state).
func (c *Client) History(ctx context.Context, channel string, limit int, before string) (rows []Row, newest nostr.Timestamp, err error) {
	f := nostr.Filter{Kinds: ContentKinds(), Tags: nostr.TagMap{"h": {channel}}, Limit: limit}
	var cut *nostr.Event
	if before != "" {
		b, err := c.Event(ctx, before)
		if err != nil {
			return nil, 0, err
		}
		cut = &b
		until := b.CreatedAt
		f.Until = &until
		f.Limit = limit + 50 // rows of the same second as before may be at or after it
	}
	evs, err := c.Query(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	if cut != nil {
		evs = slices.DeleteFunc(evs, func(e nostr.Event) bool {
			return e.CreatedAt == cut.CreatedAt && strings.Compare(e.ID, cut.ID) >= 0
		})
		if len(evs) > limit {
			evs = evs[len(evs)-limit:]
		}
	}
	for _, e := range evs {
		newest = max(newest, e.CreatedAt)
	}
	rows, err = c.applyOverlays(ctx, evs)
	return rows, newest, err
}

// applyOverlays fetches the overlays of evs by #e and applies them.
func (c *Client) applyOverlays(ctx context.Context, evs []nostr.Event) ([]Row, error) {
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	var overlays []nostr.Event
	for chunk := range slices.Chunk(ids, 500) {
		o, err := c.Query(ctx, nostr.Filter{Kinds: OverlayKinds(), Tags: nostr.TagMap{"e": chunk}, Limit: 5000})
		if err != nil {
			return nil, fmt.Errorf("overlays: %w", err)
		}
		overlays = append(overlays, o...)
	}
	return ApplyOverlays(evs, overlays), nil
}

// ApplyOverlays turns events into rows: the newest edit's text, deleted rows
// left out (9005, or a kind 5 by the row's author), reactions counted by content.
func ApplyOverlays(evs, overlays []nostr.Event) []Row {
	author := map[string]string{}
	for _, e := range evs {
		author[e.ID] = e.PubKey
	}
	deleted := map[string]bool{}
	edits := map[string]nostr.Event{}
	reactions := map[string]map[string]int{}
	for _, o := range overlays { // oldest first
		var target string
		if t := o.Tags.FindLast("e"); t != nil {
			target = t[1]
		}
		switch o.Kind {
		case kinds.DeleteInChannel:
			deleted[target] = true
		case kinds.Deletion:
			for _, t := range o.Tags {
				if len(t) >= 2 && t[0] == "e" && author[t[1]] == o.PubKey {
					deleted[t[1]] = true
				}
			}
		case kinds.Edit:
			edits[target] = o
		case kinds.Reaction:
			if reactions[target] == nil {
				reactions[target] = map[string]int{}
			}
			content := o.Content
			if content == "" {
				content = "+"
			}
			reactions[target][content]++
		}
	}
	rows := make([]Row, 0, len(evs))
	for _, e := range evs {
		if deleted[e.ID] {
			continue
		}
		r := RowOf(e)
		if ed, ok := edits[e.ID]; ok {
			r.Text, r.Edited = ed.Content, true
		}
		r.Reactions = reactions[e.ID]
		rows = append(rows, r)
	}
	return rows
}
