package session

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Loaded is the first load: the member's channels, their newest pages with
// overlays, every profile and recent presence, and the read positions.
type Loaded struct {
	Channels []client.Channel
	Events   []nostr.Event
	Read     chat.Positions
	Since    nostr.Timestamp // the live feed starts here
	Pages    []client.Fetched
	Err      error
}

// Reloaded is the channel list loaded again (a join, a leave, a new DM),
// with the pages of the channels not loaded before; Open is the channel to
// open then ("": the open one stays) and Notice what to say once it is.
type Reloaded struct {
	Channels []client.Channel
	Pages    []client.Fetched
	Open     string
	Notice   string
	Err      error
}

// joined are the channels of all that the member is in (an open channel
// one reads but never joined is not listed).
func joined(c *client.Client, all []client.Channel) []client.Channel {
	var out []client.Channel
	for _, ch := range all {
		if !ch.Archived && (ch.Members[c.PublicKey()] != "" || ch.Members[c.Member()] != "") {
			out = append(out, ch)
		}
	}
	return out
}

// Load is the first load (Loaded).
func (s *Session) Load() Job {
	c := s.c
	return func(ctx context.Context) Event {
		since := nostr.Now() - 5
		all, err := c.Channels(ctx)
		if err != nil {
			return Loaded{Err: err}
		}
		out := Loaded{Since: since, Channels: joined(c, all)}
		if out.Read, err = c.ReadStates(ctx); err != nil {
			return Loaded{Err: err}
		}
		for _, ch := range out.Channels {
			p, err := c.FetchPage(ctx, ch.ID, PageSize, nil)
			if err != nil {
				return Loaded{Err: err}
			}
			out.Pages = append(out.Pages, p)
		}
		recent := nostr.Timestamp(time.Now().Add(-chat.PresenceTTL).Unix())
		out.Events, err = c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Limit: 5000}, nostr.Filter{Kinds: []int{kinds.Presence}, Since: &recent, Limit: 5000})
		if err != nil {
			return Loaded{Err: err}
		}
		return out
	}
}

// TakeLoaded applies the first load (or a later one) and (re)starts the
// live feed from its Since; first says it was the first.
func (s *Session) TakeLoaded(ctx context.Context, l Loaded) (a Applied, first bool, err error) {
	if l.Err != nil {
		return a, false, l.Err
	}
	s.channels = l.Channels
	for k, v := range l.Read {
		s.read[k] = s.read[k].Merge(v)
	}
	a = s.takePages(l.Pages)
	a = merge(a, s.Apply(l.Events))
	first, s.loaded = !s.loaded, true
	s.Follow(ctx, l.Since)
	return a, first, nil
}

// takePages applies pages; a page shorter than asked is its channel's start.
func (s *Session) takePages(pages []client.Fetched) Applied {
	var a Applied
	for _, p := range pages {
		a = merge(a, s.Apply(p.Events))
		if p.Start {
			s.atStart[p.Channel] = true
		}
	}
	return a
}

func merge(a, b Applied) Applied {
	a.ChannelsChanged = a.ChannelsChanged || b.ChannelsChanged
	a.FeedUp = a.FeedUp || b.FeedUp
	a.Unknown = append(a.Unknown, b.Unknown...)
	a.CameOnline = append(a.CameOnline, b.CameOnline...)
	a.Quoted = append(a.Quoted, b.Quoted...)
	return a
}

// Reload loads the channel list again and the first page of each channel
// new to the session (Reloaded).
func (s *Session) Reload(open, notice string) Job {
	c := s.c
	had := map[string]bool{}
	for _, ch := range s.channels {
		had[ch.ID] = true
	}
	return func(ctx context.Context) Event {
		all, err := c.Channels(ctx)
		if err != nil {
			return Reloaded{Err: err}
		}
		out := Reloaded{Channels: joined(c, all), Open: open, Notice: notice}
		for _, ch := range out.Channels {
			if !had[ch.ID] {
				p, err := c.FetchPage(ctx, ch.ID, PageSize, nil)
				if err != nil {
					return Reloaded{Err: err}
				}
				out.Pages = append(out.Pages, p)
			}
		}
		return out
	}
}

// TakeReloaded takes a reloaded list: the open channel, if the member was
// removed from it (or it was archived), stays listed and marked until
// another opens; a change of channels restarts the live feed (its filters
// name them), which restarted reports.
func (s *Session) TakeReloaded(ctx context.Context, r Reloaded) (a Applied, restarted bool) {
	before := s.feedChannels()
	if i := s.index(s.cur); i >= 0 && s.cur != s.leaving && !slices.ContainsFunc(r.Channels, func(ch client.Channel) bool { return ch.ID == s.cur }) {
		s.gone[s.cur] = true
		r.Channels = append(r.Channels, s.channels[i])
	}
	s.channels = r.Channels
	a = s.takePages(r.Pages)
	if strings.Join(before, ",") != strings.Join(s.feedChannels(), ",") {
		s.Follow(ctx, nostr.Now()-10)
		restarted = true
	}
	return a, restarted
}

// Leaving notes that the member is leaving the open channel: once the list
// no longer has it, it is not kept in view.
func (s *Session) Leaving() { s.leaving = s.cur }

// feedChannels are the channels the member is in (the live feed's).
func (s *Session) feedChannels() []string {
	var out []string
	for _, ch := range s.channels {
		if !s.gone[ch.ID] {
			out = append(out, ch.ID)
		}
	}
	return out
}

// Open makes id the open channel (the thread closes) with the
// new-messages divider at its first unread row; it reports whether the
// open channel changed. A channel the member was removed from goes from
// the list once another opens.
func (s *Session) Open(id string) bool {
	if id == s.cur {
		return false
	}
	if s.gone[s.cur] {
		s.channels = slices.DeleteFunc(s.channels, func(ch client.Channel) bool { return ch.ID == s.cur })
		delete(s.gone, s.cur)
	}
	s.cur, s.thread = id, ""
	s.divider = s.chat.Unread(id, s.read).FirstUnread
	return true
}

// Find is the channel want names (its id, or its name ignoring case), "" when none.
func (s *Session) Find(want string) string {
	for _, ch := range s.channels {
		if ch.ID == want || strings.EqualFold(ch.Name, want) {
			return ch.ID
		}
	}
	return ""
}

// Step is the channel d places after the open one in the list (wrapping).
func (s *Session) Step(d int) string {
	n := len(s.channels)
	if n == 0 {
		return ""
	}
	return s.channels[(s.index(s.cur)+d+n)%n].ID
}

// NextUnread is the next channel after the open one with unread mentions,
// else with unread rows ("": none).
func (s *Session) NextUnread() string {
	n := len(s.channels)
	start := s.index(s.cur)
	for _, mentions := range []bool{true, false} {
		for d := 1; d <= n; d++ {
			ch := s.channels[(start+d+n)%n]
			u := s.chat.Unread(ch.ID, s.read)
			if ch.ID != s.cur && ((mentions && u.Mentions > 0) || (!mentions && u.Count > 0)) {
				return ch.ID
			}
		}
	}
	return ""
}

// OpenThread opens the thread of root ("" closes it).
func (s *Session) OpenThread(root string) { s.thread = root }

// ClearDivider drops the new-messages divider (the member sent a message).
func (s *Session) ClearDivider() { s.divider = "" }
