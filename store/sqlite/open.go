// Package sqlite is hive's default event log, a SQLite file: the rules of
// store.Core (exact tag matching through an indexed tag table, group commit
// with OK only after commit, replacement, NIP-09, NIP-40, read scopes) over
// one writer connection, a read-only pool and a background WAL checkpointer.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"sync"

	"github.com/ainb/hive/store"
	"github.com/fiatjaf/eventstore"
	"github.com/mattn/go-sqlite3"
)

// Store is the SQLite event log. Create it with Open.
type Store struct {
	*store.Core
	db *db
}

var (
	_ store.Log          = (*Store)(nil)
	_ eventstore.Store   = (*Store)(nil)
	_ eventstore.Counter = (*Store)(nil)
)

// db is the database under the log: store.Core's Backend.
type db struct {
	opts store.Options
	w    *sql.DB // exactly one connection, used only by the writer goroutine
	r    *sql.DB // read-only pool
	ck   *sql.DB // one connection that checkpoints the WAL, off the write path

	// Statements prepared on the writer's connection, keyed by SQL. Only the
	// writer goroutine touches them; a statement first seen inside a
	// transaction runs unprepared and is prepared before the next one.
	wstmts map[string]*sql.Stmt
	wanted map[string]bool

	rmu    sync.Mutex // guards rstmts
	rstmts map[string]*sql.Stmt

	checkpoints *store.Maintenance
	wal         walState // checkpoint.go
}

var _ store.Backend = (*db)(nil)

// writerCacheKB is the writer's page cache, as _cache_size (negative: KiB).
const writerCacheKB = "-8000"

func defaults(o *store.Options) {
	if o.MmapBytes <= 0 {
		o.MmapBytes = 4 << 30
	}
	if o.PageSize <= 0 {
		o.PageSize = 2048
	}
	if o.Readers <= 0 {
		o.Readers = 4
	}
	o.Defaults()
}

// Open opens (creating if needed) the event log at path and starts its writer.
func Open(path string, opts store.Options) (*Store, error) {
	defaults(&opts)
	base := "file:" + (&url.URL{Path: path}).EscapedPath()
	// The writer's page cache is kept small: SQLite's B-tree balancing
	// renumbers a page through a page number past the end of the file, and
	// the commit then walks every page the cache holds to drop it (13% of the
	// server's CPU during ingest at 32 MB).
	w := sql.OpenDB(&connector{
		dsn: base + "?_synchronous=FULL&_busy_timeout=10000&_txlock=immediate&_foreign_keys=0&_cache_size=" + writerCacheKB,
		drv: &sqlite3.SQLiteDriver{ConnectHook: stablePlans},
	})
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	// A new log gets small pages: a commit writes each page it touched to the
	// WAL, and most events touch a few index pages at random, so smaller pages
	// mean fewer bytes per commit. (No effect on an existing file.)
	if _, err := w.Exec(fmt.Sprintf(`PRAGMA page_size = %d`, opts.PageSize)); err != nil {
		w.Close()
		return nil, err
	}
	if _, err := w.Exec(`PRAGMA journal_mode = WAL`); err != nil {
		w.Close()
		return nil, err
	}
	if err := createSchema(w, opts); err != nil {
		w.Close()
		return nil, err
	}
	if err := migrateChannel(w); err != nil {
		w.Close()
		return nil, fmt.Errorf("store schema: recording each event's channel: %w", err)
	}
	// Readers map the file (no read syscall per page) and keep a private cache.
	r := sql.OpenDB(&connector{
		dsn: base + "?mode=ro&_journal_mode=WAL&_busy_timeout=10000&_query_only=1&_cache_size=-16000",
		drv: &sqlite3.SQLiteDriver{ConnectHook: mapped(opts.MmapBytes)},
	})
	r.SetMaxOpenConns(opts.Readers)
	r.SetMaxIdleConns(opts.Readers)
	// Commits must not stop to copy the WAL into the database: a goroutine of
	// its own does (PASSIVE: it never blocks writes), and the writer only
	// finishes its work when the log is to start over (checkpoint.go). When
	// it does, the WAL file is cut back to a quarter of the limit.
	if _, err := w.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	ck, err := sql.Open("sqlite3", base+"?_journal_mode=WAL&_synchronous=FULL&_busy_timeout=10000")
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	ck.SetMaxOpenConns(1)
	d := &db{opts: opts, w: w, r: r, ck: ck, wstmts: map[string]*sql.Stmt{}, wanted: map[string]bool{}, rstmts: map[string]*sql.Stmt{}}
	d.wal.pageSize, d.wal.path = walPageSize(w), path
	d.setTrigger()
	d.checkpoints = store.StartMaintenance(checkpointEvery, d.checkpoint)
	// The writer: group commit, one fsync per batch.
	return &Store{Core: store.NewCore(d, opts), db: d}, nil
}

// Close closes the database once the writer has stopped (store.Core.Close):
// it checkpoints the whole WAL into the file.
func (d *db) Close() {
	d.checkpoints.Stop()
	d.ck.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	d.ck.Close()
	for _, st := range d.wstmts {
		st.Close()
	}
	d.rmu.Lock()
	for _, st := range d.rstmts {
		st.Close()
	}
	d.rmu.Unlock()
	d.r.Close()
	d.w.Close()
}

// ReadDB exposes the read-only pool for projections that want to answer queries.
func (s *Store) ReadDB() *sql.DB { return s.db.r }

// Reader is the read-only pool; SQLite takes ? placeholders as they are.
func (s *Store) Reader() store.Reader { return s.db.r }

// mapped is the readers' connection setup: the file
// memory-mapped up to n bytes, and stable query plans.
func mapped(n int64) func(*sqlite3.SQLiteConn) error {
	return func(c *sqlite3.SQLiteConn) error {
		if _, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d", n), nil); err != nil {
			return err
		}
		return stablePlans(c)
	}
}

// connector opens connections with a per-connection setup hook, without
// registering a driver globally.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c *connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c *connector) Driver() driver.Driver                        { return c.drv }

// OpenReadOnly opens the database at path for reading only, for tools that
// read a log a hub may be writing (status, replay --verify, migrate).
func OpenReadOnly(path string) (*sql.DB, error) {
	return sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_busy_timeout=10000")
}
