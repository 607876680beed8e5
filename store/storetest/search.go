package storetest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// searchLog is a small chat: alice and bob in "ops" (named Operations) and
// "dev", carol alone in the hidden channel "vault".
type searchLog struct {
	alice, bob, carol Signer
	close, far        *nostr.Event // the words "canary rollout" together / far apart
	phrase, prefix    *nostr.Event
	dev, vault        *nostr.Event
}

const searchT0 = 1_700_000_000

func newSearchLog(t *testing.T, s Store) *searchLog {
	l := &searchLog{alice: NewSigner(t), bob: NewSigner(t), carol: NewSigner(t)}
	ops := nostr.Tag{"h", "ops"}
	// Same length, same words; the far one is newer, so only proximity puts
	// the close one first.
	l.close = l.alice.Event(t, 9, searchT0, "the canary rollout is ready for review by the team today", ops)
	l.far = l.bob.Event(t, 9, searchT0+10, "the canary is ready for review by the team today rollout", ops)
	l.phrase = l.alice.Event(t, 9, searchT0+20, "we need a plan: rollback first, then deploy", ops)
	l.prefix = l.bob.Event(t, 9, searchT0+30, "rolling restart of the database cluster", ops)
	l.dev = l.alice.Event(t, 9, searchT0+40, "rollback plan for the dev sandbox", nostr.Tag{"h", "dev"})
	// hidden: the best match of all, many times over
	l.vault = l.carol.Event(t, 9, searchT0+50, "rollback plan rollback plan rollback plan", nostr.Tag{"h", "vault"})
	mustSave(t, s, l.close, l.far, l.phrase, l.prefix, l.dev, l.vault,
		l.alice.Event(t, 0, searchT0, `{"name":"Alice","display_name":"alice in ops"}`),
		l.bob.Event(t, 39000, searchT0, "", nostr.Tag{"d", "ops"}, nostr.Tag{"name", "Operations"}),
		// not a message: never searched, whatever it says
		l.alice.Event(t, 1, searchT0+60, "rollback plan as a note", ops))
	return l
}

// searchIDs runs a search and returns the ids found, in order.
func searchIDs(t *testing.T, s Store, f nostr.Filter, sc *store.Scope) []string {
	t.Helper()
	found, err := s.QueryRaw(ctx, f, sc)
	if err != nil {
		t.Fatalf("search %q: %v", f.Search, err)
	}
	out := make([]string, len(found))
	for i, st := range found {
		out[i] = st.ID
	}
	return out
}

func wantIDs(t *testing.T, what string, got []string, want ...*nostr.Event) {
	t.Helper()
	w := make([]string, len(want))
	for i, ev := range want {
		w[i] = ev.ID
	}
	if !slices.Equal(got, w) {
		t.Errorf("%s: got %d results %v, want %d %v", what, len(got), short(got), len(w), short(w))
	}
}

func sortedByID(evs []*nostr.Event) []*nostr.Event {
	out := slices.Clone(evs)
	slices.SortFunc(out, func(a, b *nostr.Event) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func short(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id[:8]
	}
	return out
}

func searchSyntax(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	l := newSearchLog(t, s)
	hideVault := &store.Scope{Reader: l.alice.PK, Hidden: []string{"vault"}}
	type tc struct {
		what string
		f    nostr.Filter
		want []*nostr.Event
	}
	since, until := nostr.Timestamp(searchT0+5), nostr.Timestamp(searchT0+35)
	for _, c := range []tc{
		{"words close together rank above far apart (the far one is newer)", nostr.Filter{Search: "canary rollout"}, []*nostr.Event{l.close, l.far}},
		{"limit after ranking", nostr.Filter{Search: "canary rollout", Limit: 1}, []*nostr.Event{l.close}},
		{"phrase", nostr.Filter{Search: `"plan rollback"`}, []*nostr.Event{l.phrase}},
		{"negation", nostr.Filter{Search: "rollback -plan"}, nil},
		{"negated phrase", nostr.Filter{Search: `rollback plan -"rollback plan"`}, []*nostr.Event{l.phrase}},
		{"#h", nostr.Filter{Search: "rollback plan", Tags: nostr.TagMap{"h": {"dev"}}}, []*nostr.Event{l.dev}},
		{"authors", nostr.Filter{Search: "canary rollout", Authors: []string{l.bob.PK}}, []*nostr.Event{l.far}},
		{"kinds without a message kind", nostr.Filter{Search: "rollback", Kinds: []int{1}}, nil},
		{"from:HEX; unknown key:value ignored", nostr.Filter{Search: "canary from:" + l.bob.PK + " language:en"}, []*nostr.Event{l.far}},
		{"in:CHANNEL by id, #h disagreeing", nostr.Filter{Search: "rollback in:dev", Tags: nostr.TagMap{"h": {"ops"}}}, nil},
		{"from: nobody", nostr.Filter{Search: "rollback from:nobody"}, nil},
	} {
		wantIDs(t, c.what, searchIDs(t, s, c.f, hideVault), c.want...)
	}
	for _, c := range []tc{ // in any order
		{"prefix", nostr.Filter{Search: "roll*"}, []*nostr.Event{l.close, l.far, l.phrase, l.prefix, l.dev}},
		{"case and punctuation", nostr.Filter{Search: "ROLLBACK, plan!"}, []*nostr.Event{l.phrase, l.dev}},
		{"since and until", nostr.Filter{Search: "roll*", Since: &since, Until: &until}, []*nostr.Event{l.far, l.phrase, l.prefix}},
		{"from:NAME", nostr.Filter{Search: "rollback from:alice"}, []*nostr.Event{l.phrase, l.dev}},
		{"in:CHANNEL by name", nostr.Filter{Search: "roll* in:operations"}, []*nostr.Event{l.close, l.far, l.phrase, l.prefix}},
	} {
		got := searchIDs(t, s, c.f, hideVault)
		slices.Sort(got)
		wantIDs(t, c.what, got, sortedByID(c.want)...)
	}
	for q, reason := range map[string]string{
		`"rollback plan`: "quoted phrase is not closed",
		"rollback -":     `a "-" must be followed by`,
		"ro*ll":          "* may only end a word",
		"*":              "a lone * has no word",
		"-rollback":      "give at least one word",
		"from:alice":     "give at least one word",
	} {
		_, err := s.QueryRaw(ctx, nostr.Filter{Search: q}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "invalid: search: ") || !strings.Contains(err.Error(), reason) {
			t.Errorf("search %q: %v, want invalid: search: ...%s...", q, err, reason)
		}
	}
}

func searchScope(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	l := newSearchLog(t, s)
	hidden := &store.Scope{Reader: l.alice.PK, Hidden: []string{"vault"}, AuthorOnly: []int{30078}}
	member := &store.Scope{Reader: l.carol.PK, AuthorOnly: []int{30078}}
	f := nostr.Filter{Search: "rollback plan", Limit: 1}
	wantIDs(t, "the best match, in a channel the reader may not read", searchIDs(t, s, f, hidden), l.dev)
	wantIDs(t, "the same for a member of it", searchIDs(t, s, f, member), l.vault)
	hits, err := s.Search(ctx, nostr.Filter{Search: "rollback plan"}, hidden)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.Contains(h.Excerpt, "rollback plan rollback") || h.ID == l.vault.ID {
			t.Fatalf("an excerpt of the hidden channel's message reached a non-member: %q", h.Excerpt)
		}
	}
	if len(hits) != 2 || !strings.Contains(strings.ToLower(hits[0].Excerpt), "[rollback]") || !strings.Contains(hits[0].Excerpt, "[plan]") {
		t.Fatalf("hits %d, best excerpt %q: want 2 with the matches marked [rollback] [plan]", len(hits), hits[0].Excerpt)
	}
	for sc, want := range map[*store.Scope]int64{hidden: 2, member: 3, nil: 3} {
		n, err := s.CountFilters(ctx, []nostr.Filter{{Search: "rollback plan"}}, sc)
		if err != nil || n != want {
			t.Errorf("COUNT with search in scope %v = %d, %v; want %d", sc, n, err, want)
		}
	}
	// author-only kinds (read state) are never searched, even when asked for
	mustSave(t, s, l.carol.Event(t, 30078, searchT0+70, "rollback plan rollback plan", nostr.Tag{"d", "read-state:ops"}))
	wantIDs(t, "an author-only kind asked for by a search", searchIDs(t, s, nostr.Filter{Search: "rollback plan", Kinds: []int{9, 30078}}, hidden), l.dev, l.phrase)
	if n, err := s.CountFilters(ctx, []nostr.Filter{{Search: "rollback plan", Kinds: []int{30078}}}, hidden); err != nil || n != 0 {
		t.Errorf("COUNT of an author-only kind with search = %d, %v; want 0", n, err)
	}
	// a search and a plain filter overlapping: each readable event once
	n, err := s.CountFilters(ctx, []nostr.Filter{{Search: "rollback plan"}, {Kinds: []int{9}, Tags: nostr.TagMap{"h": {"vault", "dev"}}}}, hidden)
	if err != nil || n != 2 {
		t.Errorf("COUNT of a search and a filter = %d, %v; want 2", n, err)
	}
}

func searchEditsAndDeletes(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	l := newSearchLog(t, s)
	ops := nostr.Tag{"h", "ops"}
	edit := l.alice.Event(t, 40003, searchT0+100, "the migration checklist is ready", ops, nostr.Tag{"e", l.close.ID})
	mustSave(t, s, edit)
	wantIDs(t, "edited: by its new text", searchIDs(t, s, nostr.Filter{Search: "migration checklist"}, nil), l.close)
	wantIDs(t, "edited: not by its old text", searchIDs(t, s, nostr.Filter{Search: "canary rollout"}, nil), l.far)
	older := l.alice.Event(t, 40003, searchT0+90, "an older edit about kubernetes", ops, nostr.Tag{"e", l.close.ID})
	mustSave(t, s, older)
	wantIDs(t, "an older edit stored later does not win", searchIDs(t, s, nostr.Filter{Search: "kubernetes"}, nil))
	mustSave(t, s, l.alice.Event(t, 5, searchT0+110, "", nostr.Tag{"e", edit.ID}))
	wantIDs(t, "newest edit deleted: the older edit's text", searchIDs(t, s, nostr.Filter{Search: "kubernetes"}, nil), l.close)

	mustSave(t, s, l.bob.Event(t, 9005, searchT0+120, "", ops, nostr.Tag{"e", l.far.ID}))
	mustSave(t, s, l.alice.Event(t, 5, searchT0+130, "", nostr.Tag{"e", l.phrase.ID}))
	wantIDs(t, "deleted in channel (9005) and by its author (5): gone", searchIDs(t, s, nostr.Filter{Search: "rollback"}, nil), l.vault, l.dev)
	if n, err := s.CountFilters(ctx, []nostr.Filter{{Search: "rollback"}}, nil); err != nil || n != 2 {
		t.Errorf("COUNT after deletions = %d, %v; want 2", n, err)
	}
	if err := s.DeleteEvent(ctx, l.dev); err != nil {
		t.Fatal(err)
	}
	wantIDs(t, "removed from the log", searchIDs(t, s, nostr.Filter{Search: "rollback"}, nil), l.vault)
}

// SearchBackfill is the background build of the search index of a log
// written before it existed: dropIndex makes the closed log at the state
// an older hive left it in (no index); reopened, the log indexes every
// message by its current text, in the background.
func SearchBackfill(t *testing.T, newStore New, dropIndex func()) {
	open := newStore(t, Options{})
	s := open()
	l := newSearchLog(t, s)
	mustSave(t, s,
		l.alice.Event(t, 40003, searchT0+100, "the migration checklist is ready", nostr.Tag{"h", "ops"}, nostr.Tag{"e", l.close.ID}),
		l.bob.Event(t, 9005, searchT0+120, "", nostr.Tag{"h", "ops"}, nostr.Tag{"e", l.far.ID}))
	var many []*nostr.Event
	for i := 0; i < 5000; i++ { // more than a batch
		many = append(many, l.bob.Event(t, 9, searchT0+200+int64(i), "filler number "+strings.Repeat("x", i%7), nostr.Tag{"h", "dev"}))
	}
	PublishAll(t, many, s)
	s.Close()
	dropIndex()
	s = open()
	t.Cleanup(s.Close)
	late := l.alice.Event(t, 9, searchT0+9000, "filler written after the upgrade", nostr.Tag{"h", "dev"})
	mustSave(t, s, late)
	deadline := 60 * 20
	for i := 0; ; i++ {
		n, err := s.CountFilters(ctx, []nostr.Filter{{Search: "filler"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n == 5001 {
			break
		}
		if i > deadline {
			t.Fatalf("after a minute the rebuilt index holds %d of 5001 filler messages", n)
		}
		sleep50()
	}
	wantIDs(t, "rebuilt: an edited message by its new text", searchIDs(t, s, nostr.Filter{Search: "migration"}, nil), l.close)
	wantIDs(t, "rebuilt: neither an edited message's old text nor a deleted message", searchIDs(t, s, nostr.Filter{Search: "canary"}, nil))
	wantIDs(t, "rebuilt: the others", searchIDs(t, s, nostr.Filter{Search: `"plan rollback"`}, nil), l.vault, l.phrase)
}

// searchOneBatch stores messages, an edit and deletions in one commit batch
// (the writer is held by an Exec while they queue), where the new messages'
// texts reach the index together before the commit: the index must still
// end as the events, applied in order, say.
func searchOneBatch(t *testing.T, newStore New) {
	s := open(t, newStore, Options{})
	a := NewSigner(t)
	ops := nostr.Tag{"h", "ops"}
	m1 := a.Event(t, 9, searchT0, "alpha bravo", ops)
	m2 := a.Event(t, 9, searchT0+1, "charlie delta", ops)
	edit := a.Event(t, 40003, searchT0+2, "echo foxtrot", ops, nostr.Tag{"e", m1.ID})
	del := a.Event(t, 5, searchT0+3, "", nostr.Tag{"e", m2.ID})
	m3 := a.Event(t, 9, searchT0+4, "golf hotel", ops)
	held, release := make(chan struct{}), make(chan struct{})
	go s.(interface {
		Exec(context.Context, func(store.WriteTx) error) error
	}).Exec(ctx, func(store.WriteTx) error {
		close(held)
		<-release
		return nil
	})
	<-held
	var wg sync.WaitGroup
	for _, ev := range []*nostr.Event{m1, m2, edit, del, m3} {
		wg.Add(1)
		if err := s.PublishAsync(ctx, ev, func(_ []*nostr.Event, err error) {
			if err != nil {
				t.Errorf("kind %d: %v", ev.Kind, err)
			}
			wg.Done()
		}); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	wg.Wait()
	wantIDs(t, "edited in the same batch: not by its old text", searchIDs(t, s, nostr.Filter{Search: "alpha"}, nil))
	wantIDs(t, "edited in the same batch: by its new text", searchIDs(t, s, nostr.Filter{Search: "foxtrot"}, nil), m1)
	wantIDs(t, "deleted in the same batch", searchIDs(t, s, nostr.Filter{Search: "charlie"}, nil))
	wantIDs(t, "stored after them in the batch", searchIDs(t, s, nostr.Filter{Search: "golf hotel"}, nil), m3)
}
