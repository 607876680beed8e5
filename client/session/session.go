// Package session is a member's chat session, the Go twin of the web chat's
// (web/src/ui/session.js): the channels the member is in, the open channel
// and thread, the new-messages divider, how far back each channel is
// loaded, the read positions across all of the member's keys, the messages
// on their way (the outbox) and the live feed.
//
// A Session is owned by one goroutine (a surface's UI goroutine). What
// needs the hub is a Job: a method prepares it on that goroutine (reading
// the state it needs), the surface runs it anywhere (a bubbletea command),
// and hands the Event it returns back to the owning goroutine, where a Take
// method applies it. Methods that only change state apply at once.
package session

import (
	"context"
	"slices"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// PageSize is how many rows a channel's page loads (on open and per older page).
const PageSize = 100

// Job is hub work a Session prepared; it returns the Event to Take.
type Job func(ctx context.Context) Event

// Event is what a Job returns: Loaded, Reloaded, Older, Batch, FeedEnded,
// Sent or Marked.
type Event any

// Session is one member's chat session over a connected client.
type Session struct {
	c        *client.Client
	chat     *chat.Model
	events   map[string]nostr.Event // loaded rows by id: what react, edit, delete and reply act on
	channels []client.Channel       // the ones the member is in
	read     chat.Positions         // the member's, across all of its keys
	profiles []string               // keys with a profile, in the order they came
	quotes   map[string]bool        // quoted messages fetched or being fetched (quotes.go)
	loaded   bool                   // the first load is in
	cur      string                 // the open channel's id
	thread   string                 // the open thread's root, "" when closed
	divider  string                 // the first unread row when the channel was opened
	gone     map[string]bool        // channels the member was removed from while open
	atStart  map[string]bool        // channels loaded back to their first row
	paging   bool                   // an older page is on its way
	leaving  string                 // the channel being left (not kept in view)
	outbox   Outbox
	feed     *feed
}

// New is an empty session of c's member.
func New(c *client.Client) *Session {
	return &Session{c: c, chat: c.NewModel(), events: map[string]nostr.Event{}, quotes: map[string]bool{}, read: chat.Positions{},
		gone: map[string]bool{}, atStart: map[string]bool{}}
}

// Client is the session's hub connection.
func (s *Session) Client() *client.Client { return s.c }

// Chat is the chat model of everything loaded.
func (s *Session) Chat() *chat.Model { return s.chat }

// Event is the loaded row id's event.
func (s *Session) Event(id string) (nostr.Event, bool) { ev, ok := s.events[id]; return ev, ok }

// Channels are the channels the member is in (and one it was removed from
// while open, until another opens).
func (s *Session) Channels() []client.Channel { return s.channels }

// Profiles are the keys with a profile, in the order they came.
func (s *Session) Profiles() []string { return s.profiles }

// Read is the member's read positions.
func (s *Session) Read() chat.Positions { return s.read }

// Current is the open channel's id ("" before one opens).
func (s *Session) Current() string { return s.cur }

// Thread is the open thread's root ("" when none is open).
func (s *Session) Thread() string { return s.thread }

// Divider is the row the new-messages divider sits above ("" for none).
func (s *Session) Divider() string { return s.divider }

// AtStart reports whether channel is loaded back to its first row.
func (s *Session) AtStart(channel string) bool { return s.atStart[channel] }

// Gone reports whether the member was removed from channel while it was open.
func (s *Session) Gone(channel string) bool { return s.gone[channel] }

// Outbox is the member's messages on their way.
func (s *Session) Outbox() *Outbox { return &s.outbox }

// Channel is the open channel, or a Channel of its id.
func (s *Session) Channel() client.Channel {
	if i := s.index(s.cur); i >= 0 {
		return s.channels[i]
	}
	return client.Channel{ID: s.cur, Name: s.cur}
}

func (s *Session) index(id string) int {
	return slices.IndexFunc(s.channels, func(ch client.Channel) bool { return ch.ID == id })
}

// Has reports whether id is one of the listed channels.
func (s *Session) Has(id string) bool { return s.index(id) >= 0 }

// Applied is what applying events asks of the surface.
type Applied struct {
	ChannelsChanged bool     // a channel's metadata or roster changed: Reload
	FeedUp          bool     // the live subscription is on the wire
	Unknown         []string // keys without a name yet: Names fetches them
	CameOnline      []string // other members that came online (their presence answers a chat that starts)
	Quoted          []string // messages rows quote that are not loaded: Quotes fetches them
}

// Apply takes events into the session: rows and overlays into the model,
// read positions (a position of the open channel past the divider row, read
// on another of the member's keys, drops the divider), profiles, and a
// stored message ends its pending send.
func (s *Session) Apply(evs []nostr.Event) Applied {
	var out Applied
	for i := range evs {
		ev := &evs[i]
		switch {
		case ev.Kind == feedUp:
			out.FeedUp = true
			continue
		case ev.Kind == kinds.GroupMetadata || ev.Kind == kinds.GroupMembers || ev.Kind == kinds.DeleteGroup:
			out.ChannelsChanged = true
		case ev.Kind == kinds.ReadState:
			if context, at, err := s.c.ParseReadState(*ev); err == nil {
				s.TakePosition(context, at)
			}
		case ev.Kind == kinds.Presence:
			if s.chat.ComesOnline(ev) { // asked before the presence is applied
				out.CameOnline = append(out.CameOnline, ev.PubKey)
			}
		case ev.Kind == kinds.Profile:
			if !slices.Contains(s.profiles, ev.PubKey) {
				s.profiles = append(s.profiles, ev.PubKey)
			}
		case slices.Contains(client.TimelineKinds(), ev.Kind):
			s.events[ev.ID] = *ev
			if !s.chat.Names().Known(ev.PubKey) {
				out.Unknown = append(out.Unknown, ev.PubKey)
				s.chat.Names().Seen(ev.PubKey)
			}
			s.outbox.drop(ev.ID)
		}
		s.chat.Apply(ev)
	}
	out.Quoted = s.missingQuotes(evs)
	return out
}

// Names fetches the profiles of keys without a name (Applied.Unknown): a Batch.
func (s *Session) Names(pks []string) Job {
	c := s.c
	return func(ctx context.Context) Event {
		evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Authors: pks})
		if err != nil {
			return nil
		}
		return Batch{Events: evs}
	}
}
