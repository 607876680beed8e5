package chat_test

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// fixture is one file of spec/fixtures (its format: spec/fixtures/README.md).
type fixture struct {
	Name   string          `json:"name"`
	Me     string          `json:"me"`
	Events []nostr.Event   `json:"events"`
	Older  [][]nostr.Event `json:"older"`
	Read   chat.Positions  `json:"read"`
	Expect struct {
		Timelines    map[string][]map[string]any `json:"timelines"`
		Main         map[string][]map[string]any `json:"main"`
		Threads      map[string][]map[string]any `json:"threads"`
		Unread       map[string]chat.Unread      `json:"unread"`
		ThreadUnread map[string]chat.Unread      `json:"thread_unread"`
		Names        map[string]struct {
			Name  string `json:"name"`
			Label string `json:"label"`
		} `json:"names"`
		Lookup     map[string][]string `json:"lookup"`
		CleanNames map[string]string   `json:"clean_names"`
		Shown      map[string]string   `json:"shown"`
		RunWords   map[string]string   `json:"run_words"` // a row's run badge in words, times in UTC
	} `json:"expect"`
}

func loadFixtures(t testing.TB) []fixture {
	files, err := filepath.Glob("../../spec/fixtures/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	var out []fixture
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx fixture
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, fx)
	}
	return out
}

// log is every event of the fixture: the first page, then the older ones.
func (fx fixture) log() []nostr.Event {
	all := append([]nostr.Event(nil), fx.Events...)
	for _, p := range fx.Older {
		all = append(all, p...)
	}
	return all
}

// optional are the row fields a fixture checks only where it gives them.
var optional = []string{"channel", "author", "created_at", "kind", "mentions", "edited_at", "receipts", "quote", "run"}

func rowsJSON(t *testing.T, rows []chat.Row, want []map[string]any) []map[string]any {
	b, _ := json.Marshal(rows)
	var got []map[string]any
	json.Unmarshal(b, &got)
	for i := range got {
		for _, f := range optional {
			if i >= len(want) {
				break
			}
			if _, ok := want[i][f]; !ok {
				delete(got[i], f)
			}
		}
	}
	if got == nil {
		got = []map[string]any{}
	}
	return got
}

func norm(v []map[string]any) []map[string]any {
	b, _ := json.Marshal(v)
	var out []map[string]any
	json.Unmarshal(b, &out)
	if out == nil {
		out = []map[string]any{}
	}
	return out
}

// check compares the model's views with the fixture's expectations.
func (fx fixture) check(t *testing.T, how string, m *chat.Model) {
	t.Helper()
	views := []struct {
		name string
		want map[string][]map[string]any
		view func(string) []chat.Row
	}{{"timeline", fx.Expect.Timelines, m.Timeline}, {"main", fx.Expect.Main, m.Main}, {"thread", fx.Expect.Threads, m.Thread}}
	for _, v := range views {
		for id, want := range v.want {
			if got := rowsJSON(t, v.view(id), want); !reflect.DeepEqual(got, norm(want)) {
				gb, _ := json.MarshalIndent(got, "", " ")
				wb, _ := json.MarshalIndent(norm(want), "", " ")
				t.Errorf("%s (%s): %s %s:\n got %s\nwant %s", fx.Name, how, v.name, id, gb, wb)
			}
		}
	}
	for ch, want := range fx.Expect.Unread {
		if got := m.Unread(ch, fx.Read); got != want {
			t.Errorf("%s (%s): unread %s = %+v, want %+v", fx.Name, how, ch, got, want)
		}
	}
	for root, want := range fx.Expect.ThreadUnread {
		if got := m.ThreadUnread(root, fx.Read); got != want {
			t.Errorf("%s (%s): thread unread %s = %+v, want %+v", fx.Name, how, root, got, want)
		}
	}
	for pk, want := range fx.Expect.Names {
		if got := m.Names().Name(pk); got != want.Name {
			t.Errorf("%s (%s): name of %s = %q, want %q", fx.Name, how, pk[:8], got, want.Name)
		}
		if got := m.Names().Label(pk); got != want.Label {
			t.Errorf("%s (%s): label of %s = %q, want %q", fx.Name, how, pk[:8], got, want.Label)
		}
	}
	for id, want := range fx.Expect.Shown {
		if got, ok := shownText(m, id); !ok || got != want {
			t.Errorf("%s (%s): shown text of %s = %q, want %q", fx.Name, how, id, got, want)
		}
	}
	for id, want := range fx.Expect.RunWords {
		if got, ok := runWords(m, id); !ok || got != want {
			t.Errorf("%s (%s): run words of %s = %q, want %q", fx.Name, how, id, got, want)
		}
	}
	for in, want := range fx.Expect.CleanNames {
		if got := chat.CleanName(in); got != want {
			t.Errorf("%s: CleanName(%q) = %q, want %q", fx.Name, in, got, want)
		}
	}
	for name, want := range fx.Expect.Lookup {
		if got := m.Names().Lookup(name); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("%s (%s): lookup %q = %v, want %v", fx.Name, how, name, got, want)
		}
	}
}

// TestFixtures runs every fixture with its events applied in log order
// (the first page, then each older page: paging backwards), in reverse,
// one by one with the views read between events, and shuffled.
func TestFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			log := fx.log()
			m := chat.New(fx.Me)
			m.ApplyAll(log)
			fx.check(t, "log order", m)

			m = chat.New(fx.Me)
			for i := len(log) - 1; i >= 0; i-- {
				m.Apply(&log[i])
			}
			fx.check(t, "reversed", m)

			m = chat.New(fx.Me)
			for i := range log {
				m.Apply(&log[i])
				for _, ch := range m.Channels() {
					m.Timeline(ch)
					m.Unread(ch, fx.Read)
				}
			}
			m.ApplyAll(log) // every event again: duplicates change nothing
			fx.check(t, "one by one, twice", m)

			for seed := int64(1); seed <= 20; seed++ {
				sh := append([]nostr.Event(nil), log...)
				rand.New(rand.NewSource(seed)).Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
				m = chat.New(fx.Me)
				m.ApplyAll(sh)
				fx.check(t, "shuffled", m)
			}
		})
	}
}

// runWords is the run badge of row id in words (times in UTC).
func runWords(m *chat.Model, id string) (string, bool) {
	for _, ch := range m.Channels() {
		for _, r := range m.Timeline(ch) {
			if r.ID == id && r.Run != nil {
				return r.Run.Words(time.UTC), true
			}
		}
	}
	return "", false
}

// shownText is what the row id says to a person (Model.Text), found in the
// model's timelines.
func shownText(m *chat.Model, id string) (string, bool) {
	for _, ch := range m.Channels() {
		for _, r := range m.Timeline(ch) {
			if r.ID == id {
				return m.Text(r), true
			}
		}
	}
	return "", false
}
