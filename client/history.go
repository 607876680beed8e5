package client

import (
	"context"
	"slices"

	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// Page is a page of a channel's history as the chat model shows it.
type Page struct {
	Model *chat.Model
	Rows  []chat.Row    // in timeline order, replies included
	Seen  chat.Position // of the newest page: what a reader has seen, for read-state (Model.Seen); zero for an older page
}

// History loads up to limit rows of channel older than the row before (an
// id; "" for the newest), with their overlays and their keys' names, into
// a new chat model: pages (FetchPage) until limit rows sit before it or the
// channel's start is loaded.
func (c *Client) History(ctx context.Context, channel string, limit int, before string) (Page, error) {
	m := c.NewModel()
	var until *nostr.Timestamp
	if before != "" {
		b, err := c.Event(ctx, before)
		if err != nil {
			return Page{}, err
		}
		before, until = b.ID, &b.CreatedAt
	}
	rows, err := c.pageBefore(ctx, m, channel, limit, until, before)
	if err != nil {
		return Page{}, err
	}
	if len(rows) > limit {
		rows = rows[len(rows)-limit:]
	}
	var seen chat.Position
	if before == "" {
		seen = m.Seen(channel)
	}
	return Page{Model: m, Rows: rows, Seen: seen}, nil
}

// pageBefore loads pages of channel into m, the first at or before until,
// until at least limit rows sit before the row anchor ("": the newest
// page's end) or the start is loaded; it returns the rows before anchor in
// timeline order (none when anchor is not a row of channel).
func (c *Client) pageBefore(ctx context.Context, m *chat.Model, channel string, limit int, until *nostr.Timestamp, anchor string) ([]chat.Row, error) {
	p, err := c.LoadPage(ctx, m, channel, limit, until)
	for {
		if err != nil {
			return nil, err
		}
		rows := m.Timeline(channel)
		if anchor != "" {
			if _, loaded := m.Row(anchor); !loaded {
				return nil, nil // anchor is not a row of this channel
			}
			if i := slices.IndexFunc(rows, func(r chat.Row) bool { return r.ID == anchor }); i >= 0 {
				rows = rows[:i]
			}
		}
		if len(rows) >= limit || p.Start {
			return rows, nil
		}
		p, err = c.LoadOlder(ctx, m, channel, limit)
	}
}
