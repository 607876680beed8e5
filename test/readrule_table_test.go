package test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// The read rule, filter by filter, for a member, a non-member and an agent:
// every REQ and COUNT answer is compared event by event with the rule
// (readWorld.answer) or must be a restricted: refusal (readWorld.refused).
func TestReadRuleFilterTable(t *testing.T) {
	w := newReadWorld(t)
	ts := func(v nostr.Timestamp) *nostr.Timestamp { return &v }
	filters := []struct {
		name string
		f    nostr.Filter
	}{
		{"kind-less, no limit", nostr.Filter{}},
		{"kind-less, limit 5 (newest rows unreadable to some)", nostr.Filter{Limit: 5}},
		{"kinds 9, limit 5", nostr.Filter{Kinds: []int{9}, Limit: 5}},
		{"kinds 9 and 7, limit 20", nostr.Filter{Kinds: []int{9, 7}, Limit: 20}},
		{"#h open", nostr.Filter{Tags: nostr.TagMap{"h": {"lobby"}}}},
		{"#h open, kinds 9, limit 3", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"lobby"}}, Limit: 3}},
		{"#h private", nostr.Filter{Tags: nostr.TagMap{"h": {"vault"}}}},
		{"#h DM", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"dm-ac"}}}},
		{"#h open and private", nostr.Filter{Tags: nostr.TagMap{"h": {"lobby", "vault"}}}},
		{"#h unknown channel", nostr.Filter{Tags: nostr.TagMap{"h": {"nowhere"}}}},
		{"#e of a private message", nostr.Filter{Tags: nostr.TagMap{"e": {w.vaultMsg.ID}}}},
		{"#e of an open message", nostr.Filter{Tags: nostr.TagMap{"e": {w.lobbyMsg.ID}}}},
		{"#e both, kinds 7", nostr.Filter{Kinds: []int{7}, Tags: nostr.TagMap{"e": {w.lobbyMsg.ID, w.vaultMsg.ID}}}},
		{"#p the non-member", nostr.Filter{Tags: nostr.TagMap{"p": {w.eve.pk}}}},
		{"#p the non-member, limit 4", nostr.Filter{Tags: nostr.TagMap{"p": {w.eve.pk}}, Limit: 4}},
		{"#p alice", nostr.Filter{Tags: nostr.TagMap{"p": {w.alice.pk}}}},
		{"#t", nostr.Filter{Tags: nostr.TagMap{"t": {"plan"}}}},
		{"#t, limit 3", nostr.Filter{Tags: nostr.TagMap{"t": {"plan"}}, Limit: 3}},
		{"#d", nostr.Filter{Tags: nostr.TagMap{"d": {"doc", "vault", "read-state:x"}}}},
		{"authors alice", nostr.Filter{Authors: []string{w.alice.pk}}},
		{"authors alice, limit 3", nostr.Filter{Authors: []string{w.alice.pk}, Limit: 3}},
		{"authors agent and non-member", nostr.Filter{Authors: []string{w.agent.pk, w.eve.pk}}},
		{"kinds 1, 1111, 30023", nostr.Filter{Kinds: []int{1, 1111, 30023}}},
		{"kinds 5", nostr.Filter{Kinds: []int{5}}},
		{"channel snapshots", nostr.Filter{Kinds: []int{39000, 39001, 39002}}},
		{"channel snapshots #d private", nostr.Filter{Kinds: []int{39002}, Tags: nostr.TagMap{"d": {"vault"}}}},
		{"rosters listing me (#p)", nostr.Filter{Kinds: []int{39002}, Tags: nostr.TagMap{"p": {w.agent.pk}}}},
		{"since/until window", nostr.Filter{Since: ts(w.midTime - 5), Until: ts(w.midTime)}},
		{"until, limit 4", nostr.Filter{Until: ts(w.midTime), Limit: 4}},
		{"since the late rows", nostr.Filter{Since: ts(w.latestTime - 3)}},
		{"read-state (mine)", nostr.Filter{Kinds: []int{30078}}},
		{"read-state of alice", nostr.Filter{Kinds: []int{30078}, Authors: []string{w.alice.pk}}},
		{"observer frames", nostr.Filter{Kinds: []int{24200}}},
		{"observer frames to alice", nostr.Filter{Kinds: []int{24200}, Tags: nostr.TagMap{"p": {w.alice.pk}}}},
		{"ids of an open message", nostr.Filter{IDs: []string{w.lobbyMsg.ID, w.lobbyReply.ID}}},
		{"ids of a private message", nostr.Filter{IDs: []string{w.lobbyMsg.ID, w.vaultMsg.ID}}},
		{"ids unknown", nostr.Filter{IDs: []string{"0000000000000000000000000000000000000000000000000000000000000000"}}},
	}
	for _, reader := range []string{"member", "non-member", "agent"} {
		for _, tc := range filters {
			w.check(t, tc.name, reader, tc.f)
		}
	}
	// COUNT over several filters counts each readable event once.
	for reader, k := range w.keys {
		fs := []nostr.Filter{{Kinds: []int{30078}}, {Kinds: []int{9, 1}, Tags: nostr.TagMap{"t": {"plan"}}}, {Tags: nostr.TagMap{"p": {w.eve.pk}}}}
		union := map[string]bool{}
		for _, f := range fs {
			f.Limit = w.maxLimit
			for _, ev := range w.answer(f, k.pk) {
				union[ev.ID] = true
			}
		}
		if n, closed := w.readers[reader].count("multi", fs...); closed != "" || n != int64(len(union)) {
			t.Errorf("%s: COUNT of three filters = %d %q, want %d", reader, n, closed, len(union))
		}
	}
	// The table is not vacuous: the non-member is refused some filters, and
	// answered others with fewer events than the member.
	f := nostr.Filter{Kinds: []int{9}, Limit: 5}
	if slices.Equal(eventIDs(w.answer(f, w.eve.pk)), eventIDs(w.answer(f, w.alice.pk))) {
		t.Fatal("the newest messages are readable by everyone: the limit case proves nothing")
	}
}

// Live subscriptions obey the same rule: what a subscription receives after
// EOSE is exactly the new events it matches that its reader may read.
func TestReadRuleLive(t *testing.T) {
	w := newReadWorld(t)
	filters := []nostr.Filter{
		{},
		{Tags: nostr.TagMap{"p": {w.eve.pk}}},
		{Tags: nostr.TagMap{"e": {w.vaultMsg.ID, w.lobbyMsg.ID}}},
		{Authors: []string{w.alice.pk}},
		{Kinds: []int{1, 7, 9}},
	}
	for name, r := range w.readers {
		for i, f := range filters {
			if _, closed := r.req(fmt.Sprint("live", i), f); closed != "" {
				t.Fatalf("%s: %v refused: %s", name, f, closed)
			}
		}
	}
	writer := w.h.as(t, w.alice)
	var fresh []*nostr.Event
	for _, ch := range []string{"lobby", "vault", "dm-ac"} {
		fresh = append(fresh,
			writer.must(w.alice.sign(t, 9, "live "+ch, nostr.Tag{"h", ch}, nostr.Tag{"p", w.eve.pk})),
			writer.must(w.alice.sign(t, 1, "live kind 1 "+ch, nostr.Tag{"h", ch})),
		)
	}
	fresh = append(fresh,
		writer.must(w.alice.sign(t, 7, "!", nostr.Tag{"e", w.vaultMsg.ID})),
		writer.must(w.alice.sign(t, 7, "!", nostr.Tag{"e", w.lobbyMsg.ID})),
	)
	for _, ev := range fresh {
		w.chans[ev.ID] = w.channelOf(ev)
		w.byID[ev.ID] = ev
	}
	for name, r := range w.readers {
		pk := w.keys[name].pk
		got := map[string][]string{} // subscription → event ids
		r.ws.SetReadDeadline(time.Now().Add(1500 * time.Millisecond))
		for {
			_, b, err := r.ws.ReadMessage()
			if err != nil {
				break
			}
			var m []json.RawMessage
			if json.Unmarshal(b, &m) != nil || len(m) < 3 || str(m[0]) != "EVENT" {
				continue
			}
			var ev nostr.Event
			json.Unmarshal(m[2], &ev)
			got[str(m[1])] = append(got[str(m[1])], ev.ID)
		}
		for i, f := range filters {
			var want []string
			for _, ev := range fresh {
				if f.Matches(ev) && w.readable(ev, pk) {
					want = append(want, ev.ID)
				}
			}
			if g := got[fmt.Sprint("live", i)]; !slices.Equal(g, want) {
				t.Errorf("%s, live %v: got %d events, want %d", name, f, len(g), len(want))
			}
		}
	}
}

// go-nostr's client, authenticated with NIP-42, gets complete answers to the
// kind-less and tag-only filters a generic client sends.
func TestReadRuleGoNostrClient(t *testing.T) {
	w := newReadWorld(t)
	for _, reader := range []string{"member", "non-member"} {
		k := w.keys[reader]
		client := connect(t, w.h.URL)
		ctx := ctxT(t)
		time.Sleep(50 * time.Millisecond) // the challenge arrives first
		if err := client.Auth(ctx, func(ev *nostr.Event) error { return ev.Sign(k.sk) }); err != nil {
			t.Fatalf("go-nostr AUTH: %v", err)
		}
		for _, f := range []nostr.Filter{
			{},
			{Limit: 7},
			{Tags: nostr.TagMap{"e": {w.vaultMsg.ID, w.lobbyMsg.ID}}},
			{Tags: nostr.TagMap{"p": {w.eve.pk}}, Limit: 5},
			{Tags: nostr.TagMap{"t": {"plan"}}},
			{Authors: []string{w.alice.pk}, Limit: 10},
		} {
			got, err := client.QuerySync(ctx, f)
			if err != nil {
				t.Fatalf("%s %v: %v", reader, f, err)
			}
			want := w.answer(f, k.pk)
			if len(want) == 0 {
				t.Fatalf("%s %v: nothing readable, the case proves nothing", reader, f)
			}
			// the same events (go-nostr's client does not keep the hub's order)
			g, e := eventIDs(got), eventIDs(want)
			slices.Sort(g)
			slices.Sort(e)
			if !slices.Equal(g, e) {
				t.Errorf("%s %v: got %v\n want %v", reader, f, w.describe(got), w.describe(want))
			}
			if f.Limit == 0 {
				n, _, err := client.Count(ctx, nostr.Filters{f}, nil)
				if err != nil || n != int64(len(want)) {
					t.Errorf("%s COUNT %v = %d, %v; want %d", reader, f, n, err, len(want))
				}
			}
		}
	}
}

// The narrowing follows membership: a reader added to a private channel sees
// its history at once, in REQ and COUNT; removed, no longer.
func TestReadRuleFollowsMembership(t *testing.T) {
	h, tm := startTeam(t)
	createChannel(t, tm.a, tm.alice, "vault", "private")
	for i := 0; i < 3; i++ {
		tm.a.must(tm.alice.sign(t, 1, fmt.Sprint("secret ", i), nostr.Tag{"h", "vault"}))
	}
	b := h.as(t, tm.bob)
	f := nostr.Filter{Kinds: []int{1}}
	expect := func(when string, want int) {
		t.Helper()
		evs, closed := b.req("m", f)
		n, cclosed := b.count("mc", f)
		if closed != "" || cclosed != "" || len(evs) != want || n != int64(want) {
			t.Fatalf("%s: REQ %d %q, COUNT %d %q; want %d", when, len(evs), closed, n, cclosed, want)
		}
	}
	expect("before joining", 0)
	tm.a.must(tm.alice.sign(t, 9000, "", nostr.Tag{"h", "vault"}, nostr.Tag{"p", tm.bob.pk}))
	expect("added", 3)
	tm.a.must(tm.alice.sign(t, 9001, "", nostr.Tag{"h", "vault"}, nostr.Tag{"p", tm.bob.pk}))
	expect("removed", 0)
}
