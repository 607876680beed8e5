package chat

import (
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Position is a read position: every row before its second, and of its
// second the rows it names, or all of them (spec/chat.md, "Unread").
type Position = kinds.ReadPosition

// ReadPositions is where a member has read up to, per read context: a
// channel id, or "thread:<root id>" for a thread. The zero Position means
// nothing read. The read-state implementation (one per member, shared by
// their devices) provides it.
type ReadPositions interface {
	ReadUpTo(context string) Position
}

// Positions is a ReadPositions held in a map.
type Positions map[string]Position

// ReadUpTo is the position of context.
func (p Positions) ReadUpTo(context string) Position { return p[context] }

// ThreadContext is the read context of the thread rooted at root.
func ThreadContext(root string) string { return "thread:" + root }

// Unread is what a member has not read in a channel or a thread.
type Unread struct {
	Count       int    `json:"unread"`
	Mentions    int    `json:"mentions"`               // of those, the ones that p-tag the member
	FirstUnread string `json:"first_unread,omitempty"` // the oldest unread row (for a new-messages divider)
}

// Own reports whether author is the member: their key, or one of their
// paired devices.
func (m *Model) Own(author string) bool {
	return author == m.me || m.names.ActsFor(author) == m.me
}

// ComesOnline reports whether ev, not yet applied, is another member's
// presence that brings them online (they were not online before it).
func (m *Model) ComesOnline(ev *nostr.Event) bool {
	return !m.Own(ev.PubKey) && m.live.comesOnline(ev, m.now())
}

// unread reports whether r counts as unread: a content kind, visible, not
// the member's own, not read by the channel's position nor, for a reply, by
// its thread's.
func (m *Model) unread(r *row, chPos Position, rp ReadPositions) bool {
	if !m.mayBeUnread(r) || chPos.Covers(r.created, r.id) {
		return false
	}
	return r.root == "" || !rp.ReadUpTo(ThreadContext(r.root)).Covers(r.created, r.id)
}

// mayBeUnread reports whether r is unread for some position: a content
// kind, visible, not the member's own.
func (m *Model) mayBeUnread(r *row) bool {
	return counts(r.kind) && !m.gone[r.id] && !m.Own(r.author)
}

// Seen is the position that reads every loaded row of channel: its newest
// second (Newest) with the rows of that second that may be unread, so that
// a row another member writes later in that second stays unread.
func (m *Model) Seen(channel string) Position {
	ch := m.channels[channel]
	if ch == nil {
		return Position{}
	}
	return m.seen(*ch, m.Newest(channel))
}

// ThreadSeen is the position that reads every loaded reply of root's
// thread, as Seen.
func (m *Model) ThreadSeen(root string) Position {
	th := m.threads[root]
	if th == nil {
		return Position{}
	}
	var at nostr.Timestamp
	for _, r := range *th {
		at = max(at, r.created)
	}
	return m.seen(*th, at)
}

// seen is the position at second at naming the rows of rows in that
// second that may be unread (a row sits at or after its second).
func (m *Model) seen(rows sorted, at nostr.Timestamp) Position {
	if at == 0 {
		return Position{}
	}
	var ids []string
	for i := len(rows) - 1; i >= 0 && rows[i].k.t >= int64(at)*1000; i-- {
		if r := rows[i]; r.created == at && m.mayBeUnread(r) {
			ids = append(ids, r.id)
		}
	}
	return kinds.ReadThrough(at, ids)
}

func (m *Model) mentions(r *row) bool {
	for _, p := range r.mentions {
		if p == m.me {
			return true
		}
	}
	return false
}

// Unread counts channel's unread rows (replies included, each also covered
// by its thread's position) and mentions.
func (m *Model) Unread(channel string, rp ReadPositions) Unread {
	ch := m.channels[channel]
	if ch == nil {
		return Unread{}
	}
	pos := rp.ReadUpTo(channel)
	floor := int64(pos.Since()) * 1000 // rows placed before it are all read
	return m.count(*ch, pos, rp, func(r *row) bool { return r.k.t >= floor })
}

// ThreadUnread counts the unread replies of root's thread.
func (m *Model) ThreadUnread(root string, rp ReadPositions) Unread {
	th := m.threads[root]
	if th == nil || len(*th) == 0 {
		return Unread{}
	}
	return m.count(*th, rp.ReadUpTo((*th)[0].channel), rp, func(*row) bool { return true })
}

// count walks rows from the newest while more may be unread.
func (m *Model) count(rows sorted, chPos Position, rp ReadPositions, more func(*row) bool) Unread {
	var u Unread
	for i := len(rows) - 1; i >= 0 && more(rows[i]); i-- {
		r := rows[i]
		if m.unread(r, chPos, rp) {
			u.Count++
			if m.mentions(r) {
				u.Mentions++
			}
			u.FirstUnread = r.id
		}
	}
	return u
}
