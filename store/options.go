package store

import (
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// Projector keeps derived tables (hub state) in step with the log. Apply runs in
// the transaction that inserts ev, so the projection commits with the event or not
// at all; an error rejects the event. It may return events the hub signs as a
// consequence (state snapshots, system rows); they are stored in the same
// transaction and returned to the caller for fan-out.
type Projector interface {
	Schema() []string
	Apply(tx WriteTx, ev *nostr.Event) (derived []*nostr.Event, err error)
	// Stateful reports whether Apply may write for this kind; such events are
	// checked for duplicates before Apply runs, others by the insert itself.
	Stateful(kind int) bool
}

// Options tune the store. Zero values take the defaults.
type Options struct {
	MaxBatch  int   // events per write transaction (default 1000)
	QueueSize int   // pending writes before callers block (default 4096)
	Readers   int   // reader connections (default 4)
	PageSize  int   // page size of a new database file (default 2048)
	MmapBytes int64 // how much of the file readers memory-map (default 4 GiB)
	// WALLimit is the most the SQLite WAL grows to while the log is written
	// (default: an eighth of the database or 64 MiB, whichever is larger);
	// see store/sqlite's checkpoints.
	WALLimit int64
	// CommitWindow is how long a batch smaller than WindowBatch waits for more
	// writes before it commits (default 1 ms; negative: commit at once).
	CommitWindow time.Duration
	WindowBatch  int // default 8
	DefaultLimit int // rows for a filter without limit (default 500)
	MaxLimit     int // hard cap on limit (default 5000)
	Projector    Projector
	Now          func() time.Time
	Log          func(msg string, err error) // where the store reports trouble, and progress with a nil err (default: nowhere)
	// SweepEvery is how often the store deletes expired events (default 1
	// min; negative: never, SweepExpired only).
	SweepEvery time.Duration
	// FollowPoll is how often a follower of a log several instances share
	// reads it without a notification, in case one went missing (default
	// 500 ms).
	FollowPoll time.Duration
	// OnCommit, if set, hears of each committed write transaction: how many
	// writes it held and how long its commit (the fsync) took. Keep it short.
	OnCommit func(writes int, commit time.Duration)
}
