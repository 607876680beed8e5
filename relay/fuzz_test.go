package relay

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/nbd-wtf/go-nostr"
	"github.com/tidwall/gjson"
)

// Fuzz targets for the hub's input parsing and its filter-to-SQL translation.
// Seed corpora live in testdata/fuzz/<FuzzName>/ besides the f.Add seeds;
// `make fuzz` runs every target. The fixed keys and events below are
// deterministic, so the ids and pubkeys in the corpus files stay meaningful.

// fuzzKey derives a fixed test key from a label.
func fuzzKey(label string) (sk, pk string) {
	sum := sha256.Sum256([]byte("hive fuzz key " + label))
	sk = hex.EncodeToString(sum[:])
	pk, err := nostr.GetPublicKey(sk)
	if err != nil {
		panic(err)
	}
	return sk, pk
}

func fuzzSign(sk string, kind int, at int64, content string, tags ...nostr.Tag) *nostr.Event {
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content, Tags: nostr.Tags(tags)}
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	if err := ev.Sign(sk); err != nil {
		panic(err)
	}
	return ev
}

// fuzzNow is the store's clock in FuzzFilterMatching, so nothing expires between
// an insert and the query that follows it.
var fuzzNow = time.Unix(1_700_000_000, 0)

// fixedEvents are stored once per fuzz worker: ties in created_at, duplicate and
// one-element tags, multi-letter and upper-case tag names, empty and non-ASCII
// values, a NUL byte, replaceable and addressable kinds, a future expiration.
func fixedEvents() []*nostr.Event {
	a, pa := fuzzKey("a")
	b, pb := fuzzKey("b")
	c, pc := fuzzKey("c")
	first := fuzzSign(a, 1, 1000, "first", nostr.Tag{"p", pb}, nostr.Tag{"t", "hive"})
	return []*nostr.Event{
		first,
		fuzzSign(a, 1, 1000, "same second", nostr.Tag{"t", "Hive"}, nostr.Tag{"t", "hive"}, nostr.Tag{"e", first.ID}),
		fuzzSign(b, 7, 2000, "+", nostr.Tag{"e", "x"}, nostr.Tag{"e", "x"}, nostr.Tag{"p", pa}),
		fuzzSign(b, 9, 1_700_000_000, "hello", nostr.Tag{"h", "general"}, nostr.Tag{"p", pa, "wss://relay.example"}, nostr.Tag{"E", "upper"}),
		fuzzSign(c, 0, 5, `{"name":"c"}`),
		fuzzSign(c, 30023, 77, "long", nostr.Tag{"d", "post"}, nostr.Tag{"t", "long form"}),
		fuzzSign(c, 1, 0, "odd tags", nostr.Tag{"e"}, nostr.Tag{"", "empty name"}, nostr.Tag{"emoji", "x"}, nostr.Tag{"t", ""}),
		fuzzSign(a, 1, 4_102_444_800, "year 2100", nostr.Tag{"t", "future"}),
		fuzzSign(b, 1, 3000, "ünïcödé", nostr.Tag{"t", "ünïcödé"}, nostr.Tag{"r", "a\x00b"}),
		fuzzSign(a, 40000, 3000, "expires", nostr.Tag{"expiration", "4000000000"}, nostr.Tag{"h", "general"}),
		fuzzSign(c, 10002, 3000, "", nostr.Tag{"r", "wss://x"}),
		fuzzSign(a, 1, 2000, "q", nostr.Tag{"p", pc}, nostr.Tag{"q", "1"}, nostr.Tag{"Q", "1"}, nostr.Tag{"h", "random"}),
	}
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// FuzzParseClientMessage: the envelope parser never panics, and what it accepts
// has the shape the handlers rely on.
func FuzzParseClientMessage(f *testing.F) {
	sk, _ := fuzzKey("a")
	ev := fuzzSign(sk, 1, 1000, "hi", nostr.Tag{"e", strings.Repeat("0", 64)}, nostr.Tag{"p", strings.Repeat("1", 64)})
	evJSON, _ := ev.MarshalJSON()
	auth := fuzzSign(sk, 22242, 1000, "", nostr.Tag{"relay", "ws://127.0.0.1:7447"}, nostr.Tag{"challenge", "abc"})
	authJSON, _ := auth.MarshalJSON()
	for _, s := range []string{
		`["EVENT",` + string(evJSON) + `]`,
		`["AUTH",` + string(authJSON) + `]`,
		`["REQ","sub",{}]`,
		`["REQ","s",{"ids":["` + ev.ID + `"],"authors":["` + ev.PubKey + `"],"kinds":[1,9],"#e":["x"],"#P":["y"],"since":0,"until":1700000000,"limit":10}]`,
		`["REQ","s",{"kinds":[1]},{"#h":["general"]},{"limit":0}]`,
		`["COUNT","c",{"kinds":[1]}]`,
		`["CLOSE","sub"]`,
		`["REQ","",{}]`,
		`["REQ","s"]`,
		`["REQ","s",{"#e":[1,null,{}]}]`,
		`["REQ","s",{"kinds":[1e3]}]`,
		`["REQ","s",{"kinds":[-1]}]`,
		`["REQ","s",{"since":99999999999999999999999}]`,
		`["REQ","s",{"kinds":[1],"kinds":[]}]`,
		`["REQ","s",{"\u0069ds":["` + ev.ID + `"],"#\u0065":["\u00e9\ud83d\ude00"]}]`,
		`["REQ","s",{"ids":null,"#e":null}]`,
		`["REQ","s",[[["nested"]]]]`,
		`["EVENT",{"id":1}]`,
		`["EVENT",null]`,
		`["EVENT",` + strings.Replace(string(evJSON), `"kind":1`, `"kind":-1`, 1) + `]`,
		`["EVENT",` + strings.Replace(string(evJSON), `"kind":1`, `"kind":1e400`, 1) + `]`,
		`["EVENT",` + strings.Replace(string(evJSON), `"tags":[`, `"tags":[[1],`, 1) + `]`,
		`["EVENT",` + strings.Replace(string(evJSON), `"sig":`, `"id":`, 1) + `]`,
		`["CLOSE",1]`,
		`[]`,
		`{}`,
		`"EVENT"`,
		`not json`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseClientMessage(data)
		if err != nil {
			return
		}
		switch m.label {
		case "EVENT", "AUTH":
			if m.event == nil {
				t.Fatalf("%s parsed without an event", m.label)
			}
			obj := gjson.ParseBytes(data).Array()[1]
			for _, k := range []string{"id", "pubkey", "created_at", "kind", "tags", "content", "sig"} {
				if !obj.Get(k).Exists() {
					t.Fatalf("%s accepted without %q: %s", m.label, k, data)
				}
			}
			if m.event.CreatedAt < 0 || m.event.Kind < 0 {
				t.Fatalf("negative created_at or kind accepted: %s", data)
			}
		case "REQ", "COUNT":
			if m.subID == "" || len(m.filters) == 0 {
				t.Fatalf("%s with sub id %q and %d filters", m.label, m.subID, len(m.filters))
			}
		case "CLOSE":
		default:
			t.Fatalf("unexpected label %q", m.label)
		}
		for i, flt := range m.filters {
			checkFilterRoundTrip(t, flt, fmt.Sprintf("filter %d of %s", i, data))
		}
	})
}

// checkFilterRoundTrip re-marshals a parsed filter and parses it again.
func checkFilterRoundTrip(t *testing.T, flt nostr.Filter, what string) {
	t.Helper()
	if flt.Search != "" && strings.TrimSpace(flt.Search) == "" {
		t.Fatalf("%s: an empty search accepted", what)
	}
	for _, k := range flt.Kinds {
		if k < 0 || k > 65535 {
			t.Fatalf("%s: kind %d accepted", what, k)
		}
	}
	if flt.Limit < 0 || (flt.Since != nil && *flt.Since < 0) || (flt.Until != nil && *flt.Until < 0) {
		t.Fatalf("%s: negative limit, since or until accepted", what)
	}
	b, err := flt.MarshalJSON()
	if err != nil {
		t.Fatalf("%s: marshal: %v", what, err)
	}
	if !gjson.ValidBytes(b) {
		t.Fatalf("%s: re-marshaled filter is not JSON: %s", what, b)
	}
	again, err := parseFilter(gjson.ParseBytes(b))
	if err != nil {
		t.Fatalf("%s: re-marshaled filter %s does not parse: %v", what, b, err)
	}
	if !nostr.FilterEqual(flt, again) || flt.Limit != again.Limit {
		t.Fatalf("%s: round trip changed the filter\n before %#v\n json   %s\n after  %#v", what, flt, b, again)
	}
}

// FuzzFilterMatching checks the SQL translation of filters against go-nostr's
// reference matcher. Each worker stores fixedEvents once; each input adds one
// fuzzed event (by a key of its own, so it cannot replace or delete a fixed
// event), queries with the fuzzed filter, compares, and removes the event.
// It also checks the live fan-out index never misses a matching subscription.
func FuzzFilterMatching(f *testing.F) {
	_, pa := fuzzKey("a")
	_, pb := fuzzKey("b")
	fsk, fpk := fuzzKey("fuzzed")
	fixed := fixedEvents()
	type seed struct {
		filter     string
		kind       uint16
		at         int64
		n1, v1     string
		n2, v2     string
		insert     bool
		limitCheck bool
	}
	for _, s := range []seed{
		{`{}`, 1, 1000, "t", "hive", "p", pa, true, false},
		{`{"kinds":[1]}`, 1, 1000, "e", fixed[0].ID, "", "", true, false},
		{`{"kinds":[1],"limit":2}`, 1, 5000, "t", "x", "t", "y", true, true},
		{`{"limit":0}`, 9, 1, "h", "general", "", "", true, false},
		{`{"authors":["` + pa + `","` + fpk + `"],"since":1000,"until":3000}`, 7, 2000, "e", "x", "e", "x", true, false},
		{`{"ids":["` + fixed[3].ID + `"]}`, 1, 0, "", "", "", "", false, false},
		{`{"#t":["hive","Hive"]}`, 1, 1000, "t", "Hive", "T", "hive", true, false},
		{`{"#h":["general"],"kinds":[9,40000]}`, 9, 1_700_000_000, "h", "general", "p", pb, true, false},
		{`{"#h":["general"],"#p":["` + pa + `"]}`, 9, 3000, "h", "general", "p", pa, true, false},
		{`{"#e":[]}`, 1, 1000, "e", "", "", "", true, false},
		{`{"#r":["a\u0000b"]}`, 1, 1000, "r", "a\x00b", "r", "a", true, false},
		{`{"#t":["ünïcödé","","\ufffd"]}`, 1, 1000, "t", "", "t", "\xff", true, false},
		{`{"#d":["post"],"kinds":[30023]}`, 30023, 80, "d", "post", "", "", true, false},
		{`{"kinds":[0,10002],"authors":["` + fpk + `"]}`, 0, 5, "", "", "", "", true, false},
		{`{"#E":["upper"],"#e":["upper"]}`, 5, 1, "e", fixed[0].ID, "E", "upper", true, false},
		{`{"until":0}`, 1, 0, "expiration", "1800000000", "", "", true, false},
		{`{"since":9223372036854775807}`, 1, 9223372036854775807, "expiration", "1", "", "", true, false},
		{`{"kinds":[1],"kinds":[7]}`, 20001, 1, "t", "hive", "", "", true, false},
		{`{"#q":["1"],"#Q":["1"],"#h":["random"]}`, 65535, 2000, "q", "1", "Q", "1", true, true},
	} {
		f.Add(s.filter, s.kind, s.at, s.n1, s.v1, s.n2, s.v2, s.insert)
	}

	st, err := sqlite.Open(filepath.Join(f.TempDir(), "hive.db"), store.Options{Now: func() time.Time { return fuzzNow }})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(st.Close)
	ctx := context.Background()
	for _, ev := range fixed {
		if err := st.SaveEvent(ctx, ev); err != nil {
			f.Fatalf("storing fixed kind %d: %v", ev.Kind, err)
		}
	}
	def, max := st.Limits()

	f.Fuzz(func(t *testing.T, filterJSON string, kind uint16, at int64, n1, v1, n2, v2 string, insert bool) {
		// parseClientMessage refuses what is not valid JSON or not UTF-8 before
		// any filter is parsed, so neither can reach the store.
		if !gjson.Valid(filterJSON) || !utf8.ValidString(filterJSON) {
			return
		}
		flt, err := parseFilter(gjson.Parse(filterJSON))
		if err != nil {
			return
		}
		universe := fixed
		if insert {
			if at < 0 {
				at = -(at + 1)
			}
			var tags []nostr.Tag
			for _, tg := range [][2]string{{n1, v1}, {n2, v2}} {
				if tg[0] != "" || tg[1] != "" {
					// Events arrive as UTF-8 JSON; invalid bytes would not survive
					// the store's canonical encoding either.
					tags = append(tags, nostr.Tag{strings.ToValidUTF8(tg[0], "\uFFFD"), strings.ToValidUTF8(tg[1], "\uFFFD")})
				}
			}
			ev := fuzzSign(fsk, int(kind), at, "fuzzed", tags...)
			if _, err := st.Publish(ctx, ev); err == nil {
				defer func() {
					if err := st.DeleteEvent(ctx, ev); err != nil {
						t.Fatalf("removing the fuzzed event: %v", err)
					}
				}()
				universe = append(slices.Clip(fixed), ev)
			} else if r := (*store.Rejection)(nil); !errors.As(err, &r) {
				t.Fatalf("storing the fuzzed event: %v", err)
			}
		}

		var want []*nostr.Event
		live := newLiveFilter(flt)
		for _, ev := range universe {
			if live.matches(ev) != flt.Matches(ev) {
				t.Fatalf("the live filter disagrees with Matches (%v)\n filter %s\n event  %s", flt.Matches(ev), filterJSON, ev)
			}
			if flt.Matches(ev) {
				want = append(want, ev)
				if !indexFinds(flt, ev) {
					t.Fatalf("fan-out index misses a match\n filter %s\n event  %s", filterJSON, ev)
				}
			}
		}
		n, err := st.CountFilters(ctx, []nostr.Filter{flt}, nil)
		if err != nil {
			t.Fatalf("count %s: %v", filterJSON, err)
		}
		if int(n) != len(want) {
			t.Fatalf("COUNT %s = %d, Matches finds %d", filterJSON, n, len(want))
		}

		slices.SortFunc(want, func(x, y *nostr.Event) int {
			if x.CreatedAt != y.CreatedAt {
				return cmp.Compare(y.CreatedAt, x.CreatedAt) // newest first
			}
			return strings.Compare(x.ID, y.ID)
		})
		limit := flt.Limit
		switch {
		case flt.LimitZero:
			limit = 0
		case limit <= 0:
			limit = def
		case limit > max:
			limit = max
		}
		if len(want) > limit {
			want = want[:limit]
		}
		got, err := st.Query(ctx, flt)
		if err != nil {
			t.Fatalf("query %s: %v", filterJSON, err)
		}
		if !slices.Equal(eventIDs(got), eventIDs(want)) {
			t.Fatalf("store and Matches disagree on %s\n store   %v\n matches %v", filterJSON, describe(got), describe(want))
		}
	})
}

func eventIDs(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

func describe(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = fmt.Sprintf("%s…(kind %d at %d)", ev.ID[:8], ev.Kind, ev.CreatedAt)
	}
	return out
}

// indexFinds reports whether the subscription index would offer a subscription
// with filter flt to the fan-out of ev.
func indexFinds(flt nostr.Filter, ev *nostr.Event) bool {
	keys := filterKeys(flt)
	for _, k := range eventKeys(ev) {
		if slices.Contains(keys, k) {
			return true
		}
	}
	return false
}

// FuzzValidateEvent: parseEvent and validate never panic, every refusal carries
// the invalid: prefix, and nothing passes without a correct id and signature.
func FuzzValidateEvent(f *testing.F) {
	sk, _ := fuzzKey("a")
	now := time.Now().Unix()
	for _, ev := range []*nostr.Event{
		fuzzSign(sk, 1, 1000, "hi"),
		fuzzSign(sk, 1, now, "now", nostr.Tag{"e", strings.Repeat("0", 64), "wss://r", "reply"}),
		fuzzSign(sk, 9, 1000, "ünïcödé \u2028 \"quoted\" \\ \x01", nostr.Tag{"h", "general"}),
		fuzzSign(sk, 22242, 1000, "", nostr.Tag{"relay", "ws://127.0.0.1:7447"}, nostr.Tag{"challenge", "abc"}),
		fuzzSign(sk, 65535, 0, "", nostr.Tag{"t"}),
		fuzzSign(sk, 1, now+3600, "future"),
	} {
		b, _ := ev.MarshalJSON()
		f.Add(b)
	}
	for _, s := range []string{
		`{"id":1}`,
		`{}`,
		`{"id":"","pubkey":"","created_at":0,"kind":0,"tags":[],"content":"","sig":""}`,
		`{"id":"","pubkey":"","created_at":-1,"kind":70000,"tags":[[]],"content":"","sig":""}`,
		`{"id":"","pubkey":"","created_at":1e3,"kind":1.5,"tags":[["a",1]],"content":null,"sig":""}`,
		`{"id":"","id":"","pubkey":"","created_at":0,"kind":0,"tags":[],"content":""}`,
	} {
		f.Add([]byte(s))
	}
	st, err := sqlite.Open(filepath.Join(f.TempDir(), "hive.db"), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	rl := New(Config{PublicURLs: []string{"ws://127.0.0.1:7447"}}, st, discardLog())
	f.Cleanup(func() { rl.Close(); st.Close() })

	f.Fuzz(func(t *testing.T, data []byte) {
		if !gjson.ValidBytes(data) {
			return
		}
		obj := gjson.ParseBytes(data)
		if !obj.IsObject() {
			return
		}
		ev, err := parseEvent(obj)
		if err != nil {
			return
		}
		msg := rl.validate(ev)
		if msg == "" {
			if !ev.CheckID() {
				t.Fatalf("validate accepted an event with a wrong id: %s", data)
			}
			if ok, err := ev.CheckSignature(); !ok || err != nil {
				t.Fatalf("validate accepted an event with a bad signature: %s", data)
			}
			rl.checkAuthEvent(ev, "abc", time.Unix(1000, 0))
			return
		}
		if !strings.HasPrefix(msg, "invalid: ") {
			t.Fatalf("refusal %q lacks the invalid: prefix", msg)
		}
	})
}
