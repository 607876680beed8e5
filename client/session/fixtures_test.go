package session_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/client/session"
	"github.com/nbd-wtf/go-nostr"
)

// fixture reads spec/fixtures/session/name into v.
func fixture(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "spec", "fixtures", "session", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// normal is a filter as JSON with its kinds as a set (sorted).
func normal(t *testing.T, f any) map[string]any {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	if ks, ok := out["kinds"].([]any); ok {
		slices.SortFunc(ks, func(a, b any) int { return int(a.(float64) - b.(float64)) })
	}
	return out
}

// The surface fixtures (spec/fixtures/session, format in its README), run
// by the Go session as web/test/session_fixtures.test.js runs them by the
// page's: the live feed's filters, a page from a canned hub answer, the
// read-mark decisions and the outbox's states.
func TestSessionFixtures(t *testing.T) {
	t.Run("feed", func(t *testing.T) {
		var fx struct {
			Cases []struct {
				Name     string
				Channels []string
				Since    nostr.Timestamp
				Filters  []map[string]any
			}
		}
		fixture(t, "feed.json", &fx)
		for _, c := range fx.Cases {
			var got, want []map[string]any
			for _, f := range session.FeedFilters(c.Channels, c.Since) {
				got = append(got, normal(t, f))
			}
			for _, f := range c.Filters {
				want = append(want, normal(t, f))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: filters\n got %v\nwant %v", c.Name, got, want)
			}
		}
	})
	t.Run("page", func(t *testing.T) {
		var fx struct {
			Channel string
			Limit   int
			Queries []struct {
				Filter map[string]any
				Answer []nostr.Event
			}
			Expect struct {
				Rows   int
				Start  bool
				Oldest nostr.Timestamp
				Events []string
			}
		}
		fixture(t, "page.json", &fx)
		asked := 0
		hub := func(_ context.Context, fs ...nostr.Filter) ([]nostr.Event, error) {
			if len(fs) != 1 || asked >= len(fx.Queries) {
				t.Fatalf("query %d asks %d filters: %v", asked, len(fs), fs)
			}
			q := fx.Queries[asked]
			asked++
			if got, want := normal(t, fs[0]), normal(t, q.Filter); !reflect.DeepEqual(got, want) {
				t.Fatalf("query %d:\n got %v\nwant %v", asked, got, want)
			}
			return q.Answer, nil
		}
		p, err := client.FetchPageFrom(context.Background(), hub, fx.Channel, fx.Limit, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range p.Events {
			ids = append(ids, e.ID)
		}
		if asked != len(fx.Queries) || p.Rows != fx.Expect.Rows || p.Start != fx.Expect.Start || p.Oldest != fx.Expect.Oldest || !slices.Equal(ids, fx.Expect.Events) {
			t.Fatalf("after %d queries: rows %d start %v oldest %d events %v; want %+v", asked, p.Rows, p.Start, p.Oldest, ids, fx.Expect)
		}
	})
	t.Run("marks", func(t *testing.T) {
		var fx struct {
			Me     string
			Events []nostr.Event
			Marks  []struct {
				Name            string
				Read            chat.Positions
				Channel, Thread string
				Marks           chat.Positions
			}
			Divider []struct {
				Name             string
				Read             chat.Positions
				Channel, Divider string
				Stays            bool
			}
		}
		fixture(t, "marks.json", &fx)
		m := chat.New(fx.Me)
		m.ApplyAll(fx.Events)
		for _, c := range fx.Marks {
			if got := session.Marks(m, c.Read, c.Channel, c.Thread); !samePositions(got, c.Marks) {
				t.Errorf("%s: marks %v, want %v", c.Name, got, c.Marks)
			}
		}
		for _, c := range fx.Divider {
			if got := session.DividerStays(m, c.Read, c.Channel, c.Divider); got != c.Stays {
				t.Errorf("%s: the divider stays %v, want %v", c.Name, got, c.Stays)
			}
		}
	})
	t.Run("outbox", func(t *testing.T) {
		var fx struct {
			Steps []struct {
				Do, ID, Text, Reason string
				OK                   bool
				Expect               []struct {
					ID, State, Reason string
					Attempt           int
				}
			}
		}
		fixture(t, "outbox.json", &fx)
		var o session.Outbox
		for i, s := range fx.Steps {
			switch s.Do {
			case "send":
				o.Add(nostr.Event{ID: s.ID, Content: s.Text}, s.Text)
			case "refused":
				o.Refused(s.ID, s.Reason)
			case "retry":
				if ok := o.Retry(s.ID); ok != s.OK {
					t.Errorf("step %d: retry %s: %v, want %v", i, s.ID, ok, s.OK)
				}
			case "stored":
				o.Stored(s.ID)
			case "discard":
				if text := o.Discard(s.ID); text != s.Text {
					t.Errorf("step %d: discard %s gives %q, want %q", i, s.ID, text, s.Text)
				}
			default:
				t.Fatalf("step %d: no action %q", i, s.Do)
			}
			var got []string
			for _, p := range o.Items() {
				got = append(got, p.Event.ID+" "+p.State+" "+p.Reason+" "+string(rune('0'+p.Attempt)))
			}
			var want []string
			for _, p := range s.Expect {
				want = append(want, p.ID+" "+p.State+" "+p.Reason+" "+string(rune('0'+p.Attempt)))
			}
			if !slices.Equal(got, want) {
				t.Errorf("step %d (%s %s): %q, want %q", i, s.Do, s.ID, got, want)
			}
		}
	})
}

// samePositions reports whether a and b hold the same contexts at equal
// positions.
func samePositions(a, b map[string]chat.Position) bool {
	return maps.EqualFunc(a, b, chat.Position.Equal)
}
