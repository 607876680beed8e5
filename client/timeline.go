package client

import (
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

// LoadPage loads into m a page of channel: up to limit content rows at or
// before until (nil: the newest), their overlays by #e, and the profiles
// of the keys they show. It returns the rows' events, oldest first.
func (c *Client) LoadPage(ctx context.Context, m *chat.Model, channel string, limit int, until *nostr.Timestamp) ([]nostr.Event, error) {
	return c.LoadRows(ctx, m, nostr.Filter{Kinds: TimelineKinds(), Tags: nostr.TagMap{"h": {channel}}, Limit: limit, Until: until})
}

// LoadRows loads into m the rows f matches, their overlays by #e and the
// profiles of the keys they show. It returns the rows' events.
func (c *Client) LoadRows(ctx context.Context, m *chat.Model, f nostr.Filter) ([]nostr.Event, error) {
	evs, err := c.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	for i := range evs {
		m.Apply(&evs[i])
	}
	if err := c.LoadOverlays(ctx, m, evs); err != nil {
		return nil, err
	}
	return evs, c.LoadNames(ctx, m, KeysShown(evs)...)
}

// LoadOlder pages channel backwards in m: up to limit rows older than the
// oldest loaded (the rows of its second come again and merge once). It
// returns how many rows were new; 0 means the channel's start was reached.
func (c *Client) LoadOlder(ctx context.Context, m *chat.Model, channel string, limit int) (int, error) {
	_, at, ok := m.Oldest(channel)
	if !ok {
		evs, err := c.LoadPage(ctx, m, channel, limit, nil)
		return len(evs), err
	}
	before := m.Len(channel)
	if _, err := c.LoadPage(ctx, m, channel, limit+sameSecondMargin, &at); err != nil {
		return 0, err
	}
	return m.Len(channel) - before, nil
}

// LoadNames fetches the kind 0 profiles of pks that m does not name yet,
// then those of the owners they name (an agent is shown with its owner).
func (c *Client) LoadNames(ctx context.Context, m *chat.Model, pks ...string) error {
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
