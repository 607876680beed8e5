package store

import (
	"context"
	"sync"
	"time"

	"github.com/ainb/hive/store/groupcommit"
)

// Core is the part of an SQL event log written once for every backend: the
// group-commit writer, the rules a write obeys, deletion and expiry, and
// queries narrowed to a reader's scope. A backend embeds it and supplies its
// database through Backend.
type Core struct {
	opts   Options
	db     Backend
	queue  *groupcommit.Queue[*write] // the writer goroutine's input
	upkeep *Maintenance
	closed sync.Once

	// SQL built once from the dialect, for the checks every save runs.
	deletedSQL, addrDeletedSQL string
	// deleted answers the deleted-id check for the saves of the batch being
	// committed (writer goroutine only; nil: ask the log).
	deleted *deletedSet
	// named are the events the batch's saves name (batchnamed.go; writer
	// goroutine only; nil: ask the log).
	named map[string]string
	// texts are the batch's new messages, indexed just before the commit
	// (searchpending.go; writer goroutine only).
	texts []IndexedText
	// The background build of the search index of an existing log.
	stopBackfill, backfillDone chan struct{}
}

// Defaults fills in the options every backend shares (limits, clock, log,
// sweep interval); a backend sets its own (reader count, file settings) first.
func (o *Options) Defaults() {
	if o.DefaultLimit <= 0 {
		o.DefaultLimit = 500
	}
	if o.MaxLimit <= 0 {
		o.MaxLimit = 5000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = func(string, error) {}
	}
	if o.SweepEvery == 0 {
		o.SweepEvery = time.Minute
	}
	if o.FollowPoll <= 0 {
		o.FollowPoll = 500 * time.Millisecond
	}
}

// NewCore starts the writer over db and the expiry sweep. opts must have
// its defaults filled in (Options.Defaults).
func NewCore(db Backend, opts Options) *Core {
	c := &Core{opts: opts, db: db}
	c.deletedSQL = `SELECT EXISTS (SELECT 1 FROM ` + db.TagJoin() + `
		WHERE t.name = 'e' AND t.value = ? AND e.kind = ? AND e.pubkey = ?)`
	c.addrDeletedSQL = `SELECT EXISTS (SELECT 1 FROM ` + db.TagJoin() + `
		WHERE t.name = 'a' AND t.value = ? AND e.kind = ? AND e.pubkey = ? AND e.created_at >= ?)`
	c.queue = groupcommit.New(groupcommit.Options{MaxBatch: opts.MaxBatch, QueueSize: opts.QueueSize, Window: opts.CommitWindow, WindowBatch: opts.WindowBatch}, c.commit)
	c.upkeep = StartMaintenance(opts.SweepEvery, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.SweepExpired(ctx); err != nil {
			opts.Log("sweeping expired events failed", err)
		}
	})
	c.stopBackfill, c.backfillDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.backfillDone)
		c.backfill(c.stopBackfill)
	}()
	return c
}

// Close stops the sweep, stops accepting writes, commits everything already
// queued, and closes the database. Calling it again is a no-op.
func (c *Core) Close() {
	c.closed.Do(func() {
		close(c.stopBackfill)
		<-c.backfillDone
		c.upkeep.Stop()
		c.queue.Close()
		c.db.Close()
	})
}

// Init satisfies eventstore.Store; opening the log already did the work.
func (c *Core) Init() error { return nil }

// Limits reports the default and maximum limit the store applies to a filter.
func (c *Core) Limits() (def, max int) { return c.opts.DefaultLimit, c.opts.MaxLimit }
