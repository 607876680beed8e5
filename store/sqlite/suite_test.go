package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/ainb/hive/store/storetest"
)

func newSQLite(t testing.TB, o storetest.Options) func() storetest.Store {
	path := filepath.Join(t.TempDir(), "hive.db")
	return func() storetest.Store {
		s, err := sqlite.Open(path, store.Options{DefaultLimit: o.DefaultLimit, MaxLimit: o.MaxLimit, Now: o.Now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// TestSuite runs the backend-neutral store suite against the SQLite log.
func TestSuite(t *testing.T) { storetest.Run(t, newSQLite) }

// BenchmarkPublishPipelined measures durable writes through group commit.
func BenchmarkPublishPipelined(b *testing.B) { storetest.BenchPublish(b, newSQLite) }

// BenchmarkQueries reads channel history and exact lookups from 100k events.
func BenchmarkQueries(b *testing.B) { storetest.BenchQueries(b, newSQLite) }
