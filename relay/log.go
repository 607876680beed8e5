package relay

import (
	"context"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Log is what the relay needs from the event log; both store backends
// implement it.
type Log interface {
	// PublishAsync stores ev and calls done after the commit or refusal.
	PublishAsync(ctx context.Context, ev *nostr.Event, done func(derived []*nostr.Event, err error)) error
	// QueryRaw answers a filter narrowed to scope, with each event's JSON.
	QueryRaw(ctx context.Context, f nostr.Filter, scope *store.Scope) ([]store.Stored, error)
	// CountFilters counts the events matching any filter, within scope.
	CountFilters(ctx context.Context, filters []nostr.Filter, scope *store.Scope) (int64, error)
	// Limits are the default and the maximum limit of a filter.
	Limits() (def, max int)
}
