package session

import (
	"context"

	"github.com/ainb/hive/client/chat"
)

// Marks are the read positions to write for what the member sees, each
// merged with the member's: the channel, when it has unread rows, up to
// every row loaded (Seen: its newest second and that second's rows); the
// thread open in it, when it has unread replies, up to every reply loaded
// (ThreadSeen). A position that reads nothing more is not written.
// (web/src/hub/readstate.js, readMarks, decides the same:
// spec/fixtures/session/marks.json.)
func Marks(m *chat.Model, read chat.Positions, channel, thread string) map[string]chat.Position {
	out := map[string]chat.Position{}
	if channel == "" {
		return out
	}
	if at := m.Seen(channel).Merge(read[channel]); m.Unread(channel, read).Count > 0 && at.Above(read[channel]) {
		out[channel] = at
	}
	if thread != "" && m.ThreadUnread(thread, read).Count > 0 {
		ctx := chat.ThreadContext(thread)
		if at := m.ThreadSeen(thread).Merge(read[ctx]); at.Above(read[ctx]) {
			out[ctx] = at
		}
	}
	return out
}

// DividerStays reports whether the divider row stays once the read
// positions are read: it goes when the channel's position reaches the row
// (the member read it on another of its keys).
func DividerStays(m *chat.Model, read chat.Positions, channel, divider string) bool {
	r, ok := m.Row(divider)
	return divider != "" && (!ok || !read[channel].Covers(r.CreatedAt, r.ID))
}

// Marked is the end of a read mark's write.
type Marked struct{ Err error }

// Mark writes the read positions of what the member sees (Marks) when seen
// holds (the surface shows the newest rows to a person: focused, at the
// bottom); nil when there is nothing to write. The positions count at once,
// so the feed's echo of the write changes nothing.
func (s *Session) Mark(seen bool) Job {
	if !seen {
		return nil
	}
	marks := Marks(s.chat, s.read, s.cur, s.thread)
	if len(marks) == 0 {
		return nil
	}
	for k, at := range marks {
		s.read[k] = at // merged with s.read[k] already
	}
	c := s.c
	return func(ctx context.Context) Event {
		for k, at := range marks {
			if err := c.MarkRead(ctx, k, at); err != nil {
				return Marked{Err: err}
			}
		}
		return Marked{}
	}
}

// TakePosition takes a read position of one of the member's keys, merged
// with the member's; a position of the open channel that passes the divider
// row drops the divider.
func (s *Session) TakePosition(context string, at chat.Position) {
	at = at.Merge(s.read[context])
	if !at.Above(s.read[context]) {
		return
	}
	s.read[context] = at
	if context == s.cur && !DividerStays(s.chat, s.read, s.cur, s.divider) {
		s.divider = ""
	}
}
