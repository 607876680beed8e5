package sqlite_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/nbd-wtf/go-nostr"
)

// TestEveryIndexAnswersAFilter pins which index SQLite uses for each filter
// the hub answers and each check the write path runs, so that a change to
// the SQL or to the schema that leaves a query scanning the table, sorting
// its rows, or an index unused fails here. Every index of the log is named by
// at least one row below: an index none names has no filter to justify it.
func TestEveryIndexAnswersAFilter(t *testing.T) {
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "hive.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, pk, now := strings.Repeat("a", 64), strings.Repeat("b", 64), nostr.Timestamp(1_800_000_000)
	member := &store.Scope{Reader: pk, Hidden: []string{"secret"}, AuthorOnly: []int{30078}, RecipientOnly: []int{1059}}
	reads := []struct {
		name  string
		f     nostr.Filter
		scope *store.Scope
		index string
	}{
		{"channel history", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"general"}}, Limit: 50, Until: &now}, member, tagsKey},
		{"replies and reactions", nostr.Filter{Tags: nostr.TagMap{"e": {id}}, Limit: 50}, member, tagsKey},
		{"mentions", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"p": {pk}}, Limit: 50}, member, tagsKey},
		{"an author's events", nostr.Filter{Authors: []string{pk}, Limit: 20, Until: &now}, member, "events_pubkey"},
		// With both, SQLite walks the kind (no statistics tell it which is
		// rarer): right for profiles, slow for one author's messages.
		{"profiles", nostr.Filter{Authors: []string{pk}, Kinds: []int{0}}, member, "events_kind"},
		{"one event", nostr.Filter{IDs: []string{id}, Kinds: []int{9}}, member, "sqlite_autoindex_events_1"},
		{"a kind", nostr.Filter{Kinds: []int{39000}, Limit: 100}, member, "events_kind"},
		{"the newest events", nostr.Filter{Limit: 20}, member, "events_created"},
		{"events since", nostr.Filter{Since: &now}, nil, "events_created"},
	}
	used := map[string]bool{}
	for _, r := range reads {
		q, args := s.QuerySQL(r.f, r.scope)
		if q == "" {
			t.Fatalf("%s: no SQL for %v", r.name, r.f)
		}
		checkPlan(t, s, r.name, q, args, r.index, true)
		used[r.index] = true
	}
	writes := map[string]string{
		"duplicate": "sqlite_autoindex_events_1", "replaceable": "events_addr",
		"deleted id": tagsKey, "deleted address": tagsKey,
		"expired": "events_expiration",
	}
	for name, q := range s.WriteSQL() {
		index, ok := writes[name]
		if !ok {
			t.Fatalf("write check %q has no index pinned here", name)
		}
		checkPlan(t, s, name, q, store.Args{id, 5, pk, 0}[:strings.Count(q, "?")], index, false)
		used[index] = true
	}
	indexes := []string{tagsKey}
	rows, err := s.ReadDB().Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		indexes = append(indexes, n)
	}
	rows.Close()
	for _, n := range indexes {
		if !used[n] {
			t.Errorf("index %s answers no filter and no check of the write path: drop it, or pin the query it serves here", n)
		}
	}
	if len(indexes) != 7 {
		t.Errorf("the log's indexes are %v: pin the filters a new one serves here", indexes)
	}
}

// tagsKey is the tags table's primary key (WITHOUT ROWID: the table is its index).
const tagsKey = "PRIMARY KEY"

// checkPlan fails t unless SQLite's plan for q reads through index, scans
// no table and, for a read (ordered), needs no sort.
func checkPlan(t *testing.T, s *sqlite.Store, name, q string, args store.Args, index string, ordered bool) {
	t.Helper()
	rows, err := s.ReadDB().Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, q)
	}
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	rows.Close()
	all := strings.Join(plan, "\n")
	uses := " INDEX " + index
	if index == tagsKey {
		uses = " USING " + tagsKey
	}
	if !slices.ContainsFunc(plan, func(step string) bool { return strings.HasSuffix(step, uses) || strings.Contains(step, uses+" ") }) {
		t.Errorf("%s: the plan does not use %s:\n%s\n%s", name, index, all, q)
	}
	for _, step := range plan {
		scan := strings.HasPrefix(step, "SCAN ") && !strings.Contains(step, " USING ") && step != "SCAN CONSTANT ROW"
		if scan || (ordered && strings.Contains(step, "TEMP B-TREE")) {
			t.Errorf("%s: the plan has %q:\n%s\n%s", name, step, all, q)
		}
	}
}
