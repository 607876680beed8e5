package postgres

import (
	"context"
	"os"
	"testing"

	"github.com/ainb/hive/internal/pgtest"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/storetest"
)

var pg *pgtest.Cluster

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &pg)) }

func open(t testing.TB, dsn string, o store.Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSuite runs the backend-neutral store suite against PostgreSQL.
func TestSuite(t *testing.T) {
	storetest.Run(t, func(t testing.TB, o storetest.Options) func() storetest.Store {
		dsn := pg.DSN(t)
		return func() storetest.Store {
			return open(t, dsn, store.Options{DefaultLimit: o.DefaultLimit, MaxLimit: o.MaxLimit, Now: o.Now})
		}
	})
}

// TestSearchIndexBuildsOnAnOldLog: a log written before the search index
// existed is indexed in the background when opened, by current text.
func TestSearchIndexBuildsOnAnOldLog(t *testing.T) {
	dsn := pg.DSN(t)
	storetest.SearchBackfill(t, func(t testing.TB, o storetest.Options) func() storetest.Store {
		return func() storetest.Store { return open(t, dsn, store.Options{}) }
	}, func() {
		s := open(t, dsn, store.Options{})
		defer s.Close()
		if _, err := s.r.Exec(`DROP TABLE search; DROP TABLE search_state`); err != nil {
			t.Fatal(err)
		}
	})
}
