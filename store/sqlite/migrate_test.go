package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/ainb/hive/store/storetest"
	"github.com/nbd-wtf/go-nostr"
)

// TestChannelColumnMigratesAnOldLog: a log written before events had a
// channel column gets one, filled in from the stored events, when opened.
func TestChannelColumnMigratesAnOldLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hive.db")
	s, err := sqlite.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := storetest.NewSigner(t)
	msg := a.Event(t, 9, 1_700_000_000, "hi", nostr.Tag{"h", "vault"})
	react := a.Event(t, 7, 1_700_000_001, "+", nostr.Tag{"e", msg.ID})
	plain := a.Event(t, 1, 1_700_000_002, "none")
	for _, ev := range []*nostr.Event{msg, react, plain} {
		if err := s.SaveEvent(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE events DROP COLUMN channel`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err = sqlite.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for ev, want := range map[*nostr.Event]string{msg: "vault", react: "vault", plain: ""} {
		if ch, ok := store.StoredChannel(s.ReadDB(), ev.ID); !ok || ch != want {
			t.Errorf("kind %d after migration: channel %q (stored %v), want %q", ev.Kind, ch, ok, want)
		}
	}
}

// TestSearchIndexBuildsOnAnOldLog: a log written before the search index
// existed is indexed in the background when opened, by current text.
func TestSearchIndexBuildsOnAnOldLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hive.db")
	storetest.SearchBackfill(t, func(t testing.TB, o storetest.Options) func() storetest.Store {
		return func() storetest.Store {
			s, err := sqlite.Open(path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}, func() {
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`DROP TABLE search; DROP TABLE search_state`); err != nil {
			t.Fatal(err)
		}
	})
}
