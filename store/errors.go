package store

import (
	"github.com/ainb/hive/store/groupcommit"

	"github.com/fiatjaf/eventstore"
)

// Errors carry their NIP-01 OK prefix so the relay can pass them on verbatim.
var (
	ErrDuplicate = eventstore.ErrDupEvent
	ErrClosed    = groupcommit.ErrClosed
)

// Rejection is an error whose message starts with a NIP-01 machine-readable prefix.
type Rejection struct {
	Msg string
	// Needs names an event whose absence caused the refusal. If that event is
	// queued later in the same commit batch, the store applies it first and
	// tries the refused one again (a reply sent just before its parent).
	Needs string
}

func (r *Rejection) Error() string { return r.Msg }
