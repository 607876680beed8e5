package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/ainb/hive/store/storetest"
	"github.com/nbd-wtf/go-nostr"
)

// TestNULTagValues: SQLite holds tag values with NUL bytes; a filter's value
// matches only the values equal to it in full, whichever way the query
// reaches the tag (the driving tag, a second tag, a long list of values).
func TestNULTagValues(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "hive.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := storetest.NewSigner(t)
	byValue := map[string]string{}
	for i, v := range []string{"a", "a\x00b", "a\x00c", "\x00"} {
		ev := a.Event(t, 1, int64(1000+i), "x", nostr.Tag{"t", v}, nostr.Tag{"h", "c"})
		if err := s.SaveEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		byValue[v] = ev.ID
	}
	many := []string{"a\x00b"}
	for i := 0; len(many) < 70; i++ {
		many = append(many, fmt.Sprint("other", i))
	}
	for _, tc := range []struct {
		name string
		f    nostr.Filter
		want []string // tag values of the events that match
	}{
		{"driving tag", nostr.Filter{Tags: nostr.TagMap{"t": {"a\x00b"}}}, []string{"a\x00b"}},
		{"driving tag without NUL", nostr.Filter{Tags: nostr.TagMap{"t": {"a"}}}, []string{"a"}},
		{"NUL alone", nostr.Filter{Tags: nostr.TagMap{"t": {"\x00"}}}, []string{"\x00"}},
		{"second tag", nostr.Filter{Tags: nostr.TagMap{"h": {"c"}, "t": {"a\x00c"}}}, []string{"a\x00c"}},
		{"two values", nostr.Filter{Tags: nostr.TagMap{"t": {"a\x00b", "zz"}}}, []string{"a\x00b"}},
		{"long list", nostr.Filter{Tags: nostr.TagMap{"t": many}}, []string{"a\x00b"}},
		{"NUL in the tag name", nostr.Filter{Tags: nostr.TagMap{"t\x00": {"a"}}}, nil},
	} {
		found, err := s.QueryRaw(ctx, tc.f, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got, want []string
		for _, st := range found {
			got = append(got, st.ID)
		}
		for _, v := range tc.want {
			want = append(want, byValue[v])
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %d events %v, want %d %v", tc.name, len(got), got, len(want), want)
		}
	}
}
