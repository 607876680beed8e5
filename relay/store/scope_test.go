package store

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// scopeLog stores one event of each way an event is tied to a channel, in
// channel "vault", and the same in "lobby", plus events tied to none.
func scopeLog(t *testing.T, s *SQLite) (vault, lobby, free []*nostr.Event, reader signer) {
	a, reader := newSigner(t), newSigner(t)
	at := int64(1_700_000_000)
	for _, ch := range []string{"vault", "lobby"} {
		msg := a.event(t, 9, at, "hi", nostr.Tag{"h", ch})
		at++
		evs := []*nostr.Event{
			msg,
			a.event(t, 1, at, "note with h", nostr.Tag{"h", ch}),
			a.event(t, 39000, at+1, "", nostr.Tag{"d", ch}),
			a.event(t, 7, at+2, "+", nostr.Tag{"e", msg.ID}),
			// reader's deletion of a's message: stored, deletes nothing
			reader.event(t, 5, at+3, "", nostr.Tag{"e", "00"}, nostr.Tag{"e", msg.ID}),
		}
		at += 10
		mustSave(t, s, evs...)
		if ch == "vault" {
			vault = evs
		} else {
			lobby = evs
		}
	}
	free = []*nostr.Event{
		a.event(t, 1, at, "no channel"),
		a.event(t, 30078, at+1, "a's read state", nostr.Tag{"d", "rs"}),
		reader.event(t, 30078, at+2, "reader's read state", nostr.Tag{"d", "rs"}),
	}
	mustSave(t, s, free...)
	return vault, lobby, free, reader
}

func idsOf(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	slices.Sort(out)
	return out
}

func TestScopeHidesChannelsAndOthersAuthorOnly(t *testing.T) {
	s := open(t, Options{})
	vault, lobby, free, reader := scopeLog(t, s)
	for _, ev := range vault {
		if ch, ok := StoredChannel(s.ReadDB(), ev.ID); !ok || ch != "vault" {
			t.Errorf("kind %d recorded in channel %q (stored %v), want vault", ev.Kind, ch, ok)
		}
	}
	sc := &Scope{Reader: reader.pk, Hidden: []string{"vault", "elsewhere"}, AuthorOnly: []int{30078}, RecipientOnly: []int{24200}}
	want := idsOf(append(append([]*nostr.Event{}, lobby...), free[0], free[2]))
	got, err := s.QueryRaw(ctx, nostr.Filter{}, sc)
	if err != nil {
		t.Fatal(err)
	}
	gotIDs := make([]*nostr.Event, len(got))
	for i, st := range got {
		gotIDs[i] = st.Event
	}
	if g := idsOf(gotIDs); !slices.Equal(g, want) {
		t.Fatalf("scoped query returned %d events, want %d", len(g), len(want))
	}
	n, err := s.CountFilters(ctx, []nostr.Filter{{}, {Kinds: []int{9}}}, sc)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("scoped COUNT = %d, %v; want %d", n, err, len(want))
	}
	// limit counts readable rows: the newest readable event comes first
	// whatever unreadable ones are newer.
	if got, _ := s.QueryRaw(ctx, nostr.Filter{Kinds: []int{9, 1, 39000, 7, 5}, Limit: 1}, &Scope{Reader: reader.pk, Hidden: []string{"lobby"}}); len(got) != 1 || got[0].Event.ID != free[0].ID {
		t.Fatalf("limit 1 with lobby hidden: %v", got)
	}
}

func TestChannelColumnMigratesAnOldLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hive.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := newSigner(t)
	msg := a.event(t, 9, 1_700_000_000, "hi", nostr.Tag{"h", "vault"})
	react := a.event(t, 7, 1_700_000_001, "+", nostr.Tag{"e", msg.ID})
	plain := a.event(t, 1, 1_700_000_002, "none")
	mustSave(t, s, msg, react, plain)
	s.Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE events DROP COLUMN channel`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for ev, want := range map[*nostr.Event]string{msg: "vault", react: "vault", plain: ""} {
		if ch, ok := StoredChannel(s.ReadDB(), ev.ID); !ok || ch != want {
			t.Errorf("kind %d after migration: channel %q (stored %v), want %q", ev.Kind, ch, ok, want)
		}
	}
}
