package test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// count sends a COUNT and returns its number, or the CLOSED reason.
func (r *raw) count(id string, filters ...nostr.Filter) (n int64, closed string) {
	r.t.Helper()
	r.send(append([]any{"COUNT", id}, anySlice(filters)...))
	for {
		m := r.next(5e9)
		if len(m) < 3 || str(m[1]) != id {
			continue
		}
		switch str(m[0]) {
		case "COUNT":
			var body struct {
				Count int64 `json:"count"`
			}
			if err := json.Unmarshal(m[2], &body); err != nil {
				r.t.Fatalf("COUNT answer %s: %v", m[2], err)
			}
			return body.Count, ""
		case "CLOSED":
			return 0, str(m[2])
		}
	}
}

func anySlice(fs []nostr.Filter) []any {
	out := make([]any, len(fs))
	for i, f := range fs {
		out[i] = f
	}
	return out
}

// Issue 8 item 2: kinds outside the channel-gated list that carry a private
// channel's h tag were hidden from a non-member's REQ but counted by COUNT, so
// bisecting with COUNT recovered their tags, times and authors. Against the
// real binary: COUNT counts only what the reader may read.
func TestCountHidesPrivateChannelEventsBinary(t *testing.T) {
	admin, alice, eve := newKey(t), newKey(t), newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	login := func(k key) *raw {
		r := dialRaw(t, p.URL)
		if ok, msg := r.auth(k, p.URL); !ok {
			t.Fatalf("AUTH refused: %s", msg)
		}
		return r
	}
	ad := login(admin)
	ad.must(admin.sign(t, 8000, "", nostr.Tag{"p", alice.pk}))
	ad.must(admin.sign(t, 8000, "", nostr.Tag{"p", eve.pk}))
	a, e := login(alice), login(eve)
	createChannel(t, a, alice, "vault", "private")

	var secret []*nostr.Event
	for _, k := range []int{1, 1111, 30023} {
		ev := alice.sign(t, k, fmt.Sprint("secret of kind ", k), nostr.Tag{"h", "vault"}, nostr.Tag{"x", "needle"}, nostr.Tag{"d", "doc"})
		secret = append(secret, a.must(ev))
	}
	// one readable event of the same kinds, so a count of zero proves something
	a.must(alice.sign(t, 1, "public note", nostr.Tag{"x", "hay"}))

	probes := map[string]nostr.Filter{
		"kinds":             {Kinds: []int{1, 1111, 30023}},
		"kinds and author":  {Kinds: []int{1, 1111, 30023}, Authors: []string{alice.pk}},
		"bisect by #x":      {Kinds: []int{1, 1111, 30023}, Tags: nostr.TagMap{"x": {"needle"}}},
		"bisect by until":   {Kinds: []int{1111}, Until: &secret[1].CreatedAt},
		"ids":               {IDs: []string{secret[0].ID, secret[1].ID, secret[2].ID}},
		"no kinds, author":  {Authors: []string{alice.pk}, Tags: nostr.TagMap{"x": {"needle", "hay"}}},
		"by #h (refused)":   {Kinds: []int{1}, Tags: nostr.TagMap{"h": {"vault"}}},
		"addressable by #d": {Kinds: []int{30023}, Tags: nostr.TagMap{"d": {"doc"}}},
	}
	for name, f := range probes {
		want := int64(0)
		if f.Kinds != nil && f.Kinds[0] == 1 && len(f.Tags) == 0 || name == "no kinds, author" {
			want = 1 // the public note
		}
		n, closed := e.count("c", f)
		if closed != "" {
			if !hasPrefix(closed, "restricted:") {
				t.Errorf("COUNT %s: CLOSED %q, want restricted: or a count", name, closed)
			}
			continue
		}
		if n != want {
			t.Errorf("COUNT %s by a non-member = %d, want %d (only what REQ shows)", name, n, want)
		}
		evs, rclosed := e.req("r", f)
		if rclosed == "" && int64(len(evs)) != n {
			t.Errorf("%s: COUNT %d but REQ returns %d events", name, n, len(evs))
		}
	}
	// The channel's own member still counts everything.
	if n, closed := a.count("m", nostr.Filter{Kinds: []int{1, 1111, 30023}}); closed != "" || n != 4 {
		t.Fatalf("member COUNT = %d %q, want 4", n, closed)
	}
}
