package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/ainb/hive/store/storetest"
)

// newSQLite makes a log file for the suite. In tests, once the suite has
// closed the log, SQLite must find the file intact.
func newSQLite(t testing.TB, o storetest.Options) func() storetest.Store {
	path := filepath.Join(t.TempDir(), "hive.db")
	if _, isTest := t.(*testing.T); isTest {
		t.Cleanup(func() { checkIntegrity(t, path) })
	}
	return func() storetest.Store {
		s, err := sqlite.Open(path, store.Options{DefaultLimit: o.DefaultLimit, MaxLimit: o.MaxLimit, Now: o.Now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func checkIntegrity(t testing.TB, path string) {
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check after the suite closed the log: %q, %v", ok, err)
	}
}

// TestSuite runs the backend-neutral store suite against the SQLite log.
func TestSuite(t *testing.T) { storetest.Run(t, newSQLite) }

// BenchmarkPublishPipelined measures durable writes through group commit.
func BenchmarkPublishPipelined(b *testing.B) { storetest.BenchPublish(b, newSQLite) }

// BenchmarkQueries reads channel history and exact lookups from 100k events
// (HIVE_BENCH_STORED=1000000 for 1M).
func BenchmarkQueries(b *testing.B) { storetest.BenchQueries(b, newSQLite) }
