package test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"

	"github.com/ainb/hive/internal/pgtest"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/postgres"
	"github.com/ainb/hive/store/sqlite"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for raw looks at a hub's tables
)

// pg is the throwaway PostgreSQL cluster of this test binary.
var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	if plan := os.Getenv(floodEnv); plan != "" {
		runFlooder(plan) // this process is a test's flooder (startFlooder)
		return
	}
	os.Exit(pgtest.Main(m, &pg))
}

// onPostgres reports whether the in-process closed hubs of this run use the
// PostgreSQL log (HIVE_TEST_STORE=postgres; make test runs the closed-hub
// tests both ways).
func onPostgres() bool { return os.Getenv("HIVE_TEST_STORE") == "postgres" }

// hubStore picks the log of an in-process hub whose SQLite file would be at
// path: nil (that file) or a PostgreSQL database named after path, so a hub
// started again at the same path finds the same log.
func hubStore(t testing.TB, path string) (store.Opener, string) {
	if !onPostgres() {
		return nil, ""
	}
	sum := sha256.Sum256([]byte(path))
	dsn := pg.Named(t, "hub_"+hex.EncodeToString(sum[:8]))
	return func(o store.Options) (store.Log, error) { return postgres.Open(ctxT(t), dsn, o) }, dsn
}

// sqliteAt opens the SQLite log at path.
func sqliteAt(path string) store.Opener {
	return func(o store.Options) (store.Log, error) { return sqlite.Open(path, o) }
}

// rawDB opens the hub's database directly, for tests that look at or damage
// its tables (SQL here uses no placeholders, so it runs on both).
func (h *closedHub) rawDB(t testing.TB) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite3", "file:"+h.Path
	if h.DSN != "" {
		driver, dsn = "pgx", h.DSN
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
