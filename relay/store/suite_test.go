package store_test

import (
	"path/filepath"
	"testing"

	"github.com/ainb/hive/relay/store"
	"github.com/ainb/hive/relay/store/storetest"
)

// TestSuite runs the backend-neutral store suite against the SQLite log.
func TestSuite(t *testing.T) {
	storetest.Run(t, func(t testing.TB, o storetest.Options) func() storetest.Store {
		path := filepath.Join(t.TempDir(), "hive.db")
		return func() storetest.Store {
			s, err := store.Open(path, store.Options{DefaultLimit: o.DefaultLimit, MaxLimit: o.MaxLimit, Now: o.Now})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
