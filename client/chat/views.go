package chat

import (
	"sort"

	"github.com/nbd-wtf/go-nostr"
)

// visible reports whether r is shown: not deleted, or a deleted thread root
// that still has visible replies (shown as a tombstone).
func (m *Model) visible(r *row) bool {
	if !m.gone[r.id] {
		return true
	}
	if r.root != "" {
		return false
	}
	n, _ := m.replyStats(r.id)
	return n > 0
}

// Timeline is channel's visible rows in order, replies included (Root set).
func (m *Model) Timeline(channel string) []Row {
	ch := m.channels[channel]
	if ch == nil {
		return nil
	}
	out := make([]Row, 0, len(*ch))
	for _, r := range *ch {
		if m.visible(r) {
			out = append(out, m.view(r))
		}
	}
	return out
}

// Main is channel's visible top-level rows in order (threads folded into
// their roots' reply counts).
func (m *Model) Main(channel string) []Row {
	ch := m.channels[channel]
	if ch == nil {
		return nil
	}
	var out []Row
	for _, r := range *ch {
		if r.root == "" && m.visible(r) {
			out = append(out, m.view(r))
		}
	}
	return out
}

// Thread is the thread of root: the root (a tombstone when deleted, left
// out while not loaded), then its visible replies in order.
func (m *Model) Thread(root string) []Row {
	var out []Row
	if r := m.rows[root]; r != nil && m.visible(r) {
		out = append(out, m.view(r))
	}
	if th := m.threads[root]; th != nil {
		for _, r := range *th {
			if !m.gone[r.id] {
				out = append(out, m.view(r))
			}
		}
	}
	return out
}

// Row is one loaded row as shown, deleted or not.
func (m *Model) Row(id string) (Row, bool) {
	r := m.rows[id]
	if r == nil {
		return Row{}, false
	}
	return m.view(r), true
}

// Channels lists the channels that have loaded rows, sorted.
func (m *Model) Channels() []string {
	out := make([]string, 0, len(m.channels))
	for id := range m.channels {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Len is how many rows of channel are loaded, deleted ones included.
func (m *Model) Len(channel string) int {
	if ch := m.channels[channel]; ch != nil {
		return len(*ch)
	}
	return 0
}

// Oldest is the oldest loaded row of channel (deleted or not): the cursor
// for paging backwards (a REQ with until = its created_at; rows already
// loaded are merged without duplicates).
func (m *Model) Oldest(channel string) (id string, at nostr.Timestamp, ok bool) {
	ch := m.channels[channel]
	if ch == nil || len(*ch) == 0 {
		return "", 0, false
	}
	oldest := (*ch)[0]
	for _, r := range *ch { // a reply moved after its question can be older
		if r.created < oldest.created {
			oldest = r
		}
	}
	return oldest.id, oldest.created, true
}

// Newest is the created_at of the newest loaded row of channel, deleted or
// not: what a reader who saw the whole timeline has read up to.
func (m *Model) Newest(channel string) nostr.Timestamp {
	ch := m.channels[channel]
	if ch == nil || len(*ch) == 0 {
		return 0
	}
	var at nostr.Timestamp
	for i := len(*ch) - 1; i >= 0; i-- {
		r := (*ch)[i]
		at = max(at, r.created)
		if r.k.t < int64(at)*1000 {
			break
		}
	}
	return at
}

// MainSince is Main from the first row whose time (in milliseconds, as
// Millis) is at or after ms: a channel's newest rows without a view of
// every older one.
func (m *Model) MainSince(channel string, ms int64) []Row {
	ch := m.channels[channel]
	if ch == nil {
		return nil
	}
	var out []Row
	for _, r := range (*ch)[ch.at(key{t: ms}):] {
		if r.root == "" && m.visible(r) {
			out = append(out, m.view(r))
		}
	}
	return out
}

// Millis is the time of the loaded row id in milliseconds (as Millis of
// its event).
func (m *Model) Millis(id string) (int64, bool) {
	if r := m.rows[id]; r != nil {
		return r.own, true
	}
	return 0, false
}

// ThreadSince is Thread without the rows whose time (in milliseconds, as
// Millis) is before ms: a long thread's newest rows without a view of
// every older one.
func (m *Model) ThreadSince(root string, ms int64) []Row {
	var out []Row
	if r := m.rows[root]; r != nil && r.own >= ms && m.visible(r) {
		out = append(out, m.view(r))
	}
	if th := m.threads[root]; th != nil {
		for _, r := range (*th)[th.at(key{t: ms}):] {
			if !m.gone[r.id] {
				out = append(out, m.view(r))
			}
		}
	}
	return out
}
