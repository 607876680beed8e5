package store

import (
	"database/sql"
	"fmt"
	"unsafe"

	"github.com/nbd-wtf/go-nostr"
)

// Stored is an event with the JSON it was stored as, so it can be sent on
// without encoding it again, and the columns a read rule and the paging of
// a read judge it by, so that a read need not decode it.
//
// A row read from the log (QueryRaw) is not decoded: Event is nil, and
// Channel is the channel recorded when it was stored. An event delivered
// live (Live) is decoded, and its channel is found by ChannelOf.
type Stored struct {
	ID        string
	PubKey    string
	Kind      int
	CreatedAt nostr.Timestamp
	// Channel is ChannelOf the event as recorded when it was stored ("" for
	// none); only meaningful when Event is nil.
	Channel string
	// Raw is the event's JSON as stored. Read-only: it may share memory
	// with a string.
	Raw []byte
	// Event is the decoded event: set for live events, nil for rows read from
	// the log (Decode decodes them).
	Event *nostr.Event
}

// Live is ev as delivered live, decoded, with its JSON (nil: not rendered).
func Live(ev *nostr.Event, raw []byte) Stored {
	return Stored{ID: ev.ID, PubKey: ev.PubKey, Kind: ev.Kind, CreatedAt: ev.CreatedAt, Raw: raw, Event: ev}
}

// Decode is the event itself: Event when it is at hand, else decoded from
// Raw (a new event each call).
func (s *Stored) Decode() (*nostr.Event, error) {
	if s.Event != nil {
		return s.Event, nil
	}
	ev := &nostr.Event{}
	if err := ev.UnmarshalJSON(s.Raw); err != nil {
		return nil, fmt.Errorf("error: stored event is corrupt: %w", err)
	}
	return ev, nil
}

// ChannelOf is the channel the event belongs to (the package's ChannelOf):
// the one recorded in the log for a row read from it, else found from the
// event with lookup.
func (s *Stored) ChannelOf(lookup func(id string) (string, bool)) string {
	if s.Event == nil {
		return s.Channel
	}
	return ChannelOf(s.Event, lookup)
}

// Tagged reports whether the event has a tag name whose first value is one
// of values. A row read from the log is decoded for it (rows of the kinds
// that need it are few); one that cannot be decoded has no tags.
func (s *Stored) Tagged(name string, values ...string) bool {
	ev, err := s.Decode()
	return err == nil && ev.Tags.ContainsAny(name, values)
}

// storedColumns are the columns of the events row e that scanStored reads.
const storedColumns = "e.id, e.pubkey, e.kind, e.created_at, e.channel, e.raw"

// rowScanner reads rows that start with storedColumns, into the same
// destinations row after row (one set of them per query, not per row).
type rowScanner struct {
	st   Stored
	ch   sql.NullString
	at   int64
	raw  any
	dest []any
}

// newRowScanner reads storedColumns and then the columns into more.
func newRowScanner(more ...any) *rowScanner {
	r := &rowScanner{}
	r.dest = append([]any{&r.st.ID, &r.st.PubKey, &r.st.Kind, &r.at, &r.ch, &r.raw}, more...)
	return r
}

// scan reads the current row. Raw shares the memory of the string the
// driver read the JSON into (it is never written to): one copy of each
// event, not two.
func (r *rowScanner) scan(rows *sql.Rows) (Stored, error) {
	if err := rows.Scan(r.dest...); err != nil {
		return Stored{}, err
	}
	st := r.st
	switch raw := r.raw.(type) {
	case string:
		st.Raw = unsafe.Slice(unsafe.StringData(raw), len(raw))
	case []byte: // a driver that reads text as bytes (database/sql has copied them)
		st.Raw = raw
	default:
		return Stored{}, fmt.Errorf("stored event %s: raw is %T, not text", st.ID, r.raw)
	}
	st.CreatedAt, st.Channel = nostr.Timestamp(r.at), r.ch.String
	return st, nil
}
