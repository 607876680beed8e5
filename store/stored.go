package store

import (
	"database/sql"
	"fmt"

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
	Raw     []byte
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

// scanStored reads a row that starts with storedColumns; more receives the
// columns after them.
func scanStored(rows *sql.Rows, more ...any) (Stored, error) {
	var st Stored
	var ch sql.NullString
	var at int64
	dest := append([]any{&st.ID, &st.PubKey, &st.Kind, &at, &ch, &st.Raw}, more...)
	if err := rows.Scan(dest...); err != nil {
		return st, err
	}
	st.CreatedAt, st.Channel = nostr.Timestamp(at), ch.String
	return st, nil
}
