// Package postgres is hive's PostgreSQL event log: the same semantics as the
// SQLite log (exact tag index, group commit with OK only after commit,
// replacement in the event's own transaction, NIP-09 and NIP-40, reader
// scopes, COUNT) for several hive instances sharing one database.
//
// Every write transaction takes one transaction-level advisory lock, so the
// instances write one batch at a time, as SQLite's single writer does: rules
// that read state and then write (last owner, unique reactions, replacement)
// see every earlier commit, and sequence numbers are committed in order, which
// lets readers catch up by sequence.
package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Store is the PostgreSQL event log. Create it with Open.
type Store struct {
	*store.Core
	db     *db
	opts   store.Options
	cfg    *pgx.ConnConfig
	r      *sql.DB // reader pool
	own    *ownSeqs
	origin string // this store's name on the ephemeral channel
}

var (
	_ store.Log      = (*Store)(nil)
	_ store.Follower = (*Store)(nil)
)

// db is the database under the log: store.Core's Backend.
type db struct {
	opts store.Options
	w    *sql.DB // one connection, used by the writer goroutine only
	r    *sql.DB // reader pool

	// conn is the writer's connection (writer goroutine only), and version
	// the projections' version it last saw under the write lock: another
	// one next time means another instance changed them in between.
	conn    *sql.Conn
	version int64
	own     *ownSeqs
}

var _ store.Backend = (*db)(nil)

// writeLock is the advisory lock key every write transaction holds.
const writeLock = 0x68697665 // "hive"

// Open connects to the database at dsn (a postgres:// URL or key=value
// string), creates the schema if needed and starts the writer. Of opts it
// uses the batching, limits, reader count, sweep interval, projector, clock
// and log; the SQLite-only settings are ignored.
func Open(ctx context.Context, dsn string, opts store.Options) (*Store, error) {
	if opts.Readers <= 0 {
		opts.Readers = 8
	}
	opts.Defaults()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad connection string: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		// A server that does not answer fails writes with an error instead
		// of holding them (connect_timeout in the URL overrides this).
		cfg.ConnectTimeout = 10 * time.Second
	}
	w := stdlib.OpenDB(*cfg)
	w.SetMaxOpenConns(1)
	// Filters vary in selectivity (one channel's page, a whole author), so
	// every read is planned for its own values: a generic plan of a cached
	// statement can sort a whole channel to return 50 rows.
	rcfg := cfg.Copy()
	rcfg.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	r := stdlib.OpenDB(*rcfg)
	r.SetMaxOpenConns(opts.Readers)
	r.SetMaxIdleConns(opts.Readers)
	d := &db{opts: opts, w: w, r: r, own: &ownSeqs{m: map[int64]bool{}}}
	if err := d.migrate(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	return &Store{Core: store.NewCore(d, opts), db: d, opts: opts, cfg: cfg, r: r, own: d.own, origin: rand.Text()}, nil
}

// migrate creates the schema under the write lock, so instances starting
// together do not race on it.
func (d *db) migrate(ctx context.Context) error {
	tx, err := d.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, writeLock); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	var hadIndex bool
	if err := tx.QueryRowContext(ctx, `SELECT to_regclass('search') IS NOT NULL`).Scan(&hadIndex); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	all := append(schema(), searchSchema...)
	if d.opts.Projector != nil {
		all = append(all, d.opts.Projector.Schema()...)
	}
	t := &Tx{q: tx}
	for _, stmt := range all {
		stmt = portable(stmt)
		if _, err := t.Exec(stmt); err != nil {
			return fmt.Errorf("postgres schema: %w", err)
		}
	}
	if !hadIndex {
		if err := store.MarkSearchBackfill(t); err != nil {
			return fmt.Errorf("postgres schema: %w", err)
		}
	}
	return tx.Commit()
}

// Close closes the connections once the writer has stopped (store.Core.Close).
func (d *db) Close() {
	if d.conn != nil {
		d.conn.Close()
	}
	d.r.Close()
	d.w.Close()
}

// Reader reads with ? placeholders, rewritten to $n.
func (s *Store) Reader() store.Reader { return reader{s.r} }

// Reader is db (a connection to a log's database) read with ? placeholders.
func Reader(db *sql.DB) store.Reader { return reader{db} }

// OpenReadOnly connects to the database at dsn for reading only, for tools
// that read a log hubs may be writing (status, replay --verify).
func OpenReadOnly(dsn string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad connection string: %w", err)
	}
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	return stdlib.OpenDB(*cfg), nil
}

// reader is the pool with ? placeholders.
type reader struct{ db *sql.DB }

func (r reader) Query(q string, args ...any) (*sql.Rows, error) {
	return r.db.Query(Rebind(q), portableArgs(args)...)
}
func (r reader) QueryRow(q string, args ...any) *sql.Row {
	return r.db.QueryRow(Rebind(q), portableArgs(args)...)
}

// portable adapts a projection table's DDL, written for both backends:
// INTEGER columns hold unix times and counts, which outgrow PostgreSQL's
// 32-bit INTEGER, so they become BIGINT.
func portable(ddl string) string {
	return strings.ReplaceAll(ddl, " INTEGER ", " BIGINT ")
}

// Analyze refreshes the planner's statistics of the log's tables. Autovacuum
// does it within about a minute of a large change; call it after a bulk load
// (hive admin migrate does), so the first queries already read a channel's
// page from the tag index instead of sorting the whole channel.
func (s *Store) Analyze(ctx context.Context) error {
	_, err := s.r.ExecContext(ctx, `ANALYZE events, tags`)
	return err
}
