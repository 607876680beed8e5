package client

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Member is the member the client acts for: for a paired device (its auth
// tag is a device attestation, with the device clause) its owner, else its
// own key; an agent acts as itself (spec/auth.md, "Devices act as their
// owner"). Roles, channel membership and read positions are the member's.
func (c *Client) Member() string {
	if c.opts.AuthTag != nil {
		if a, err := identity.ParseAuthTag(c.opts.AuthTag); err == nil && a.Device {
			return a.Owner
		}
	}
	return c.keys.PublicHex
}

// NewModel is an empty chat model for the client's member.
func (c *Client) NewModel() *chat.Model { return chat.New(c.Member()) }

// secondMax bounds how many rows of one second a page completes (the
// hub's max_limit is at least this).
const secondMax = 5000

// Fetched is a page of a channel as the hub answered it, not yet applied to
// any model (spec/chat.md, "Paging"): the rows and their overlays.
type Fetched struct {
	Channel string
	Events  []nostr.Event // the rows, then their overlays and the retractions of those
	Rows    int           // how many of Events are rows
	// Start: the page holds fewer rows than asked, so the channel's first
	// row is among them.
	Start bool
	// Oldest is the second of the page's oldest row, whole in the page (the
	// next older page asks until Oldest - 1); 0 without rows.
	Oldest nostr.Timestamp
}

// FetchPage fetches a page of channel: its newest limit rows at or before
// until (nil: the newest) and, when the hub returns limit rows, every other
// row of the page's oldest second (the hub cuts a page anywhere inside a
// second: a page never ends inside one), with their overlays by #e and the
// deletions of those. It applies nothing, so a surface can run it on any
// goroutine and apply the events on its own.
func (c *Client) FetchPage(ctx context.Context, channel string, limit int, until *nostr.Timestamp) (Fetched, error) {
	return FetchPageFrom(ctx, c.Query, channel, limit, until)
}

// Querier asks a hub for the events filters match (Client.Query).
type Querier func(ctx context.Context, filters ...nostr.Filter) ([]nostr.Event, error)

// FetchPageFrom is FetchPage asking q (spec/fixtures/session/page.json runs
// it on a canned answer).
func FetchPageFrom(ctx context.Context, q Querier, channel string, limit int, until *nostr.Timestamp) (Fetched, error) {
	out := Fetched{Channel: channel}
	evs, err := fetchRows(ctx, q, nostr.Filter{Kinds: TimelineKinds(), Tags: nostr.TagMap{"h": {channel}}, Limit: limit, Until: until})
	if err != nil {
		return out, err
	}
	out.Rows, out.Start = len(evs), len(evs) < limit
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
		if out.Oldest == 0 || e.CreatedAt < out.Oldest {
			out.Oldest = e.CreatedAt
		}
	}
	over, err := fetchOverlays(ctx, q, ids, nil)
	out.Events = append(evs, over...)
	return out, err
}

// fetchRows fetches the rows f matches and, when the hub returns f.Limit of
// them, the rest of the oldest second it returned (FetchPage).
func fetchRows(ctx context.Context, q Querier, f nostr.Filter) ([]nostr.Event, error) {
	evs, err := q(ctx, f)
	if err != nil || len(evs) == 0 || len(evs) < f.Limit {
		return evs, err
	}
	oldest := slices.MinFunc(evs, func(a, b nostr.Event) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) }).CreatedAt
	f.Since, f.Until, f.Limit = &oldest, &oldest, secondMax
	second, err := q(ctx, f)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(evs))
	for _, e := range evs {
		seen[e.ID] = true
	}
	for _, e := range second {
		if !seen[e.ID] {
			evs = append(evs, e)
		}
	}
	return evs, nil
}

// LoadPage loads into m a page of channel (FetchPage) and the profiles of
// the keys it shows. It returns the page.
func (c *Client) LoadPage(ctx context.Context, m *chat.Model, channel string, limit int, until *nostr.Timestamp) (Fetched, error) {
	p, err := c.FetchPage(ctx, channel, limit, until)
	if err != nil {
		return p, err
	}
	m.ApplyAll(p.Events)
	quoted, err := c.LoadQuoted(ctx, m, p.Events[:p.Rows])
	if err != nil {
		return p, err
	}
	return p, c.LoadNames(ctx, m, append(KeysShown(p.Events[:p.Rows]), KeysShown(quoted)...)...)
}

// maxQuotedFetch bounds the quoted messages fetched for one page.
const maxQuotedFetch = 100

// LoadQuoted fetches the messages the rows of evs quote that m has not
// loaded (another channel's, an older page's) and keeps them in m as what
// the quotes show (chat.Model.ApplyQuoted). A message the member may not
// read stays unknown: its quote shows no text. It returns those fetched.
func (c *Client) LoadQuoted(ctx context.Context, m *chat.Model, evs []nostr.Event) ([]nostr.Event, error) {
	ids := m.MissingQuotes(evs, maxQuotedFetch)
	if len(ids) == 0 {
		return nil, nil
	}
	got, err := c.Query(ctx, nostr.Filter{IDs: ids, Limit: len(ids)})
	if err != nil {
		return nil, fmt.Errorf("quoted messages: %w", err)
	}
	for i := range got {
		m.ApplyQuoted(&got[i])
	}
	return got, nil
}

// LoadRows loads into m the rows f matches (the rest of the oldest second
// too when the hub returns f.Limit rows), their overlays by #e and the
// profiles of the keys they show. It returns the rows' events.
func (c *Client) LoadRows(ctx context.Context, m *chat.Model, f nostr.Filter) ([]nostr.Event, error) {
	evs, err := fetchRows(ctx, c.Query, f)
	if err != nil {
		return nil, err
	}
	m.ApplyAll(evs)
	if err := c.LoadOverlays(ctx, m, evs); err != nil {
		return nil, err
	}
	return evs, c.LoadNames(ctx, m, KeysShown(evs)...)
}

// LoadOlder pages channel backwards in m: the page before the oldest
// loaded row's second (whole in m: every page and LoadRows loads its
// oldest second whole). It returns the page; Start means the channel's
// first row is loaded.
func (c *Client) LoadOlder(ctx context.Context, m *chat.Model, channel string, limit int) (Fetched, error) {
	var until *nostr.Timestamp
	if _, at, ok := m.Oldest(channel); ok {
		before := at - 1
		until = &before
	}
	return c.LoadPage(ctx, m, channel, limit, until)
}

// LoadNames fetches the kind 0 profiles of pks that m does not name yet,
// then those of the owners they name (an agent is shown with its owner).
func (c *Client) LoadNames(ctx context.Context, m *chat.Model, pks ...string) error {
	for _, pk := range pks { // a device whose profile came live (not through here): its owner too
		if o := m.Names().Owner(pk); o != "" && m.Names().Known(pk) && !m.Names().Known(o) {
			pks = append(slices.Clip(pks), o)
		}
	}
	for round := 0; round < 2; round++ {
		var want []string
		var profs []nostr.Event
		now := time.Now()
		for _, pk := range pks {
			if m.Names().Known(pk) || slices.Contains(want, pk) {
				continue
			}
			if e, ok := c.profiles.get(pk, c.opts.ProfileCache, now); ok {
				if e.ev != nil {
					profs = append(profs, *e.ev)
				}
				m.Names().Seen(pk)
				continue
			}
			want = append(want, pk)
		}
		if len(want) > 0 {
			asked, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Authors: want})
			if err != nil {
				return fmt.Errorf("profiles: %w", err)
			}
			c.profiles.put(want, asked, c.opts.ProfileCache, now)
			profs = append(profs, asked...)
		}
		if len(profs) == 0 && len(want) == 0 {
			return nil
		}
		pks = nil // the owners to name next, never written over the caller's keys
		for i := range profs {
			m.Apply(&profs[i])
			if o := m.Names().Owner(profs[i].PubKey); o != "" {
				pks = append(pks, o)
			}
		}
		for _, pk := range want {
			m.Names().Seen(pk) // asked once: a key without a profile keeps its npub
		}
	}
	return nil
}

// KeysShown are the authors and mentioned keys of evs.
func KeysShown(evs []nostr.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(append(out, e.PubKey), chat.SystemKeys(&e)...)
		if a := chat.QuotedAuthor(&e); a != "" {
			out = append(out, a)
		}
		for _, t := range e.Tags {
			if len(t) >= 2 && t[0] == "p" {
				out = append(out, t[1])
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TimelineKinds are the kinds of timeline rows: content kinds and system rows.
func TimelineKinds() []int { return append(ContentKinds(), kinds.SystemRow) }
