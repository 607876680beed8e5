package store

import (
	"context"
	"database/sql"

	"github.com/fiatjaf/eventstore"
	"github.com/nbd-wtf/go-nostr"
)

// WriteTx is a write transaction as a Projector or an Exec callback sees it.
// SQL is written once, portable, with ? placeholders; each backend binds
// them its own way (the PostgreSQL log rewrites them to $n).
type WriteTx interface {
	Exec(q string, args ...any) (sql.Result, error)
	Query(q string, args ...any) (*sql.Rows, error)
	QueryRow(q string, args ...any) *sql.Row
}

// Reader answers read-only SQL with ? placeholders, outside the writer.
type Reader interface {
	Query(q string, args ...any) (*sql.Rows, error)
	QueryRow(q string, args ...any) *sql.Row
}

// Log is an event log as the hub and the commands use it. The SQLite log
// (store/sqlite) and the PostgreSQL log (store/postgres) implement it.
type Log interface {
	eventstore.Store
	eventstore.Counter
	// Publish stores ev and returns after commit, with the events the
	// projector derived from it.
	Publish(ctx context.Context, ev *nostr.Event) ([]*nostr.Event, error)
	// PublishAsync is Publish that returns at once; done runs after the commit.
	PublishAsync(ctx context.Context, ev *nostr.Event, done func(derived []*nostr.Event, err error)) error
	Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error)
	QueryRaw(ctx context.Context, f nostr.Filter, scope *Scope) ([]Stored, error)
	CountFilters(ctx context.Context, filters []nostr.Filter, scope *Scope) (int64, error)
	Unreadable(ctx context.Context, ids []string, scope *Scope) (string, error)
	Limits() (def, max int)
	SweepExpired(ctx context.Context) error
	// Exec runs fn in the writer's next transaction, serialised with writes.
	Exec(ctx context.Context, fn func(WriteTx) error) error
	// Reader reads projections and the log with ? placeholders.
	Reader() Reader
}

// Follower is a log that several hive instances share: Follow delivers every
// event committed after a sequence number, by any instance, in order.
type Follower interface {
	// Follow calls fn for each committed event after sequence after until
	// ctx ends; local reports events this process committed itself. An
	// ephemeral event another instance announced comes with seq 0.
	Follow(ctx context.Context, after int64, fn func(seq int64, ev Stored, local bool)) error
	LastSeq(ctx context.Context) (int64, error)
	// Announce hands an ephemeral event (never stored) to the other
	// instances' followers.
	Announce(ctx context.Context, ev *nostr.Event) error
}

// Opener opens a log with the given options (the hub adds its projector).
type Opener func(Options) (Log, error)
