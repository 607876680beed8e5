package client

import (
	"context"

	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// Page is a page of a channel's history as the chat model shows it.
type Page struct {
	Model  *chat.Model
	Rows   []chat.Row      // in timeline order, replies included
	Newest nostr.Timestamp // created_at of the newest row loaded, deleted or not (what a reader has seen, for read-state)
}

// sameSecondMargin is how many rows more than asked a page fetches.
const sameSecondMargin = 20

// History loads up to limit rows of channel older than the row before (an
// id; "" for the newest), with their overlays and their keys' names, into
// a new chat model.
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
	// The hub cuts a page by NIP-01 order (created_at, then id): fetch more,
	// so the rows of the cut's second are all there to be put in order.
	n := limit + sameSecondMargin
	if until != nil {
		n = limit + 50 // rows of the same second as before may be at or after it
	}
	if _, err := c.LoadPage(ctx, m, channel, n, until); err != nil {
		return Page{}, err
	}
	rows := m.Timeline(channel)
	if before != "" {
		for i, r := range rows {
			if r.ID == before {
				rows = rows[:i]
				break
			}
		}
		if _, loaded := m.Row(before); !loaded {
			rows = nil // before is not a row of this channel
		}
	}
	if len(rows) > limit {
		rows = rows[len(rows)-limit:]
	}
	var newest nostr.Timestamp
	if before == "" {
		newest = m.Newest(channel)
	}
	return Page{Model: m, Rows: rows, Newest: newest}, nil
}
