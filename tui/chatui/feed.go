package chatui

import (
	"context"
	"slices"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// pageSize is how many rows a channel page loads (on open and per page
// up); maxSecond bounds the rows of one second a page completes.
const (
	pageSize  = 100
	maxSecond = 5000
)

// loadedMsg is the first load: the member's channels, their newest pages
// with overlays, every profile, and the read positions.
type loadedMsg struct {
	channels []client.Channel
	events   []nostr.Event
	rp       map[string]nostr.Timestamp
	since    nostr.Timestamp
	err      error
}

// eventsMsg are events from the hub (live, a page, profiles).
type eventsMsg struct {
	evs  []nostr.Event
	live bool
}

// feedEnded says the live subscription ended for good.
type feedEnded struct{ err error }

// joined are the channels the member is in (an open channel one reads but
// never joined is not listed).
func (m *Model) joined(all []client.Channel) []client.Channel {
	var out []client.Channel
	for _, ch := range all {
		if !ch.Archived && (ch.Members[m.c.PublicKey()] != "" || ch.Members[m.c.Member()] != "") {
			out = append(out, ch)
		}
	}
	return out
}

// load is the first load (and a reload when channels change).
func (m *Model) load() tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		since := nostr.Now() - 5
		all, err := c.Channels(ctx)
		if err != nil {
			return loadedMsg{err: err}
		}
		out := loadedMsg{since: since}
		out.channels = m.joined(all)
		if out.rp, err = c.ReadStates(ctx); err != nil {
			return loadedMsg{err: err}
		}
		for _, ch := range out.channels {
			evs, err := page(ctx, c, ch.ID)
			if err != nil {
				return loadedMsg{err: err}
			}
			out.events = append(out.events, evs...)
		}
		recent := nostr.Timestamp(time.Now().Add(-chat.PresenceTTL).Unix())
		profs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Limit: 5000}, nostr.Filter{Kinds: []int{kinds.Presence}, Since: &recent, Limit: 5000})
		if err != nil {
			return loadedMsg{err: err}
		}
		out.events = append(out.events, profs...)
		return out
	}
}

// page fetches the newest page of channel's rows with their overlays
// (the events only: the model applies them in Update).
func page(ctx context.Context, c *client.Client, channel string) ([]nostr.Event, error) {
	evs, _, err := pageRows(ctx, c, channel, pageSize, nil)
	return evs, err
}

// pageRows fetches up to limit of channel's rows at or before until (nil:
// the newest), and every row of the page's oldest second (the hub cuts a
// page anywhere in a second: a burst of one second must not show with
// gaps, and the next page starts a second earlier), with their overlays
// and the retractions of those; rows is how many of the events are rows.
func pageRows(ctx context.Context, c *client.Client, channel string, limit int, until *nostr.Timestamp) (evs []nostr.Event, rows int, err error) {
	f := nostr.Filter{Kinds: client.TimelineKinds(), Tags: nostr.TagMap{"h": {channel}}, Limit: limit, Until: until}
	evs, err = c.Query(ctx, f)
	if err != nil || len(evs) == 0 {
		return evs, len(evs), err
	}
	if len(evs) == limit {
		oldest := slices.MinFunc(evs, func(a, b nostr.Event) int { return int(a.CreatedAt) - int(b.CreatedAt) }).CreatedAt
		f.Since, f.Until, f.Limit = &oldest, &oldest, maxSecond
		second, err := c.Query(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		for _, e := range second {
			if !slices.ContainsFunc(evs, func(x nostr.Event) bool { return x.ID == e.ID }) {
				evs = append(evs, e)
			}
		}
	}
	rows = len(evs)
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	over, err := c.Query(ctx, nostr.Filter{Kinds: client.OverlayKinds(), Tags: nostr.TagMap{"e": ids}, Limit: 5000})
	if err != nil {
		return nil, 0, err
	}
	var oids []string
	for _, o := range over {
		oids = append(oids, o.ID)
	}
	if len(oids) > 0 {
		retracted, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Deletion}, Tags: nostr.TagMap{"e": oids}, Limit: 5000})
		if err != nil {
			return nil, 0, err
		}
		over = append(over, retracted...)
	}
	return append(evs, over...), rows, nil
}

// follow (re)starts the live subscription over the joined channels: rows,
// overlays, typing, profiles, channel changes and the member's read state.
// The client resubscribes after a reconnect from the newest event seen, and
// drops what it already delivered; the chat model ignores a duplicate id.
func (m *Model) follow(since nostr.Timestamp) {
	if m.stopFeed != nil {
		m.stopFeed()
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.stopFeed = cancel
	ids := m.channelIDs()
	live := append(append(client.TimelineKinds(), client.OverlayKinds()...), kinds.Typing)
	filters := []nostr.Filter{
		{Kinds: []int{kinds.Profile, kinds.Presence, kinds.GroupMetadata, kinds.GroupMembers, kinds.DeleteGroup}, Since: &since},
		{Kinds: []int{kinds.ReadState}, Authors: []string{m.c.PublicKey()}, Since: &since},
		{Kinds: []int{kinds.Deletion}, Since: &since},
	}
	if len(ids) > 0 {
		filters = append(filters, nostr.Filter{Kinds: live, Tags: nostr.TagMap{"h": ids}, Since: &since})
	}
	// One batch waits at most: an event goes to the chat at once when it
	// has taken the last batch, and events coming faster than it draws
	// gather into the next one (flushed at the latest every 30 ms).
	out := make(chan []nostr.Event, 1)
	m.feed = out
	c := m.c
	go func() {
		defer close(out)
		var batch []nostr.Event
		flush := time.NewTicker(30 * time.Millisecond)
		defer flush.Stop()
		evc := make(chan nostr.Event, 256)
		errc := make(chan error, 1)
		go func() {
			sub, err := c.Subscribe(ctx, filters...)
			if err != nil {
				errc <- err
				return
			}
			select {
			case evc <- nostr.Event{Kind: liveKind}: // the REQ is on the wire
			case <-ctx.Done():
			}
			errc <- c.FollowSub(ctx, sub, func(ev nostr.Event) (bool, error) {
				select {
				case evc <- ev:
				case <-ctx.Done():
				}
				return false, nil
			})
		}()
		for {
			select {
			case ev := <-evc:
				batch = append(batch, ev)
				select {
				case out <- batch:
					batch = nil
				default:
				}
			case <-flush.C:
				if len(batch) == 0 {
					continue
				}
				select {
				case out <- batch:
					batch = nil
				case <-ctx.Done():
					return
				}
			case err := <-errc:
				if ctx.Err() == nil {
					out <- []nostr.Event{{Kind: -1, Content: errText(err)}}
				}
				return
			}
		}
	}()
}

// liveKind marks, in the feed, that the live subscription is on the wire
// (what others answer from then on reaches the chat).
const liveKind = -2

// next waits for the feed's next batch.
func (m *Model) next() tea.Cmd {
	feed := m.feed
	if feed == nil {
		return nil
	}
	return func() tea.Msg {
		evs, ok := <-feed
		if !ok {
			return nil // a restarted feed: the new one has its own next
		}
		if len(evs) == 1 && evs[0].Kind == -1 {
			return feedEnded{err: errorString(evs[0].Content)}
		}
		return eventsMsg{evs: evs, live: true}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// apply takes events into the model; it reports whether the channel list
// changed (a channel's metadata or roster).
func (m *Model) apply(evs []nostr.Event) (channelsChanged bool) {
	var unknown []string
	m.version++
	for i := range evs {
		ev := &evs[i]
		switch {
		case ev.Kind == liveKind:
			m.later = append(m.later, m.announce())
			continue
		case ev.Kind == kinds.GroupMetadata || ev.Kind == kinds.GroupMembers || ev.Kind == kinds.DeleteGroup:
			channelsChanged = true
		case ev.Kind == kinds.ReadState:
			if ctxName, at, err := m.c.ParseReadState(*ev); err == nil && at > m.rp[ctxName] {
				m.rp[ctxName] = at
			}
		case ev.Kind == kinds.Presence:
			if hello := m.hello(ev); hello != nil {
				m.later = append(m.later, hello)
			}
		case ev.Kind == kinds.Profile:
			if !slices.Contains(m.profiles, ev.PubKey) {
				m.profiles = append(m.profiles, ev.PubKey)
			}
		case slices.Contains(client.TimelineKinds(), ev.Kind):
			m.events[ev.ID] = *ev
			if !m.chat.Names().Known(ev.PubKey) {
				unknown = append(unknown, ev.PubKey)
				m.chat.Names().Seen(ev.PubKey)
			}
			m.dropPending(ev.ID)
		}
		m.chat.Apply(ev)
	}
	if len(unknown) > 0 {
		m.later = append(m.later, m.fetchProfiles(unknown))
	}
	return channelsChanged
}

// fetchProfiles asks for the profiles of keys the model has no name for.
func (m *Model) fetchProfiles(pks []string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Authors: pks})
		if err != nil {
			return nil
		}
		return eventsMsg{evs: evs}
	}
}
