package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/mattn/go-sqlite3"
)

// TestStablePlans: the writer's and the readers'
// connections plan with QPSG on, so go-sqlite3's clearing of the bindings
// after each run does not make SQLite compile the statement again at the
// next (the deletion check's e.kind = ? did, at every batch).
func TestStablePlans(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "hive.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, pool := range map[string]*sql.DB{"writer": s.db.w, "reader": s.db.r} {
		conn, err := pool.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		err = conn.Raw(func(dc any) error {
			on, err := qpsg(dc.(*sqlite3.SQLiteConn), -1)
			if err == nil && !on {
				t.Errorf("the %s's connection plans without QPSG: its statements are compiled again after every run", name)
			}
			return err
		})
		conn.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
