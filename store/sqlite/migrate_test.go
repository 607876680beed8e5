package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
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

// reopen opens the log at path, the same one at every call.
func reopen(path string) storetest.New {
	return func(t testing.TB, o storetest.Options) func() storetest.Store {
		return func() storetest.Store {
			s, err := sqlite.Open(path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
}

// TestSearchIndexBuildsOnAnOldLog: a log written before the search index
// existed is indexed in the background when opened, by current text.
func TestSearchIndexBuildsOnAnOldLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hive.db")
	storetest.SearchBackfill(t, reopen(path), func() { execSQL(t, path, `DROP TABLE search; DROP TABLE search_state`) })
}

// execSQL runs statements on the closed log at path.
func execSQL(t *testing.T, path, stmts string) {
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmts); err != nil {
		t.Fatal(err)
	}
}

// TestSearchIndexWithTextCopyIsRebuilt: the search index an older hive
// wrote (an FTS5 table holding its own copy of every text, complete) is
// made again, contentless, and rebuilt in the background when the log is
// opened; searches then find every message by its current text.
func TestSearchIndexWithTextCopyIsRebuilt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hive.db")
	// The older index, as a complete build left it (its rows are not
	// needed: the rebuild must not trust them).
	storetest.SearchBackfill(t, reopen(path), func() {
		execSQL(t, path, `DROP TABLE search; DROP TABLE search_edits;
			CREATE VIRTUAL TABLE search USING fts5(text, tokenize = 'unicode61 remove_diacritics 0');
			UPDATE search_state SET v = (SELECT MAX(seq) FROM events)`)
	})
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ddl string
	if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'search'`).Scan(&ddl); err != nil || !strings.Contains(ddl, "content = ''") {
		t.Errorf("search index after the upgrade: %q, %v; want a contentless FTS5 table", ddl, err)
	}
	var copies int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'search_content'`).Scan(&copies); err != nil || copies != 0 {
		t.Errorf("the index's copy of the text is still there (%d, %v)", copies, err)
	}
}
