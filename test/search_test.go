package test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// startHiveProc runs `hive serve` (the real binary) with admin as its
// admin, over the PostgreSQL log when HIVE_TEST_STORE=postgres.
func startHiveProc(t *testing.T, admin key) *closedHub {
	t.Helper()
	args := []string{"--admin", admin.pk}
	if onPostgres() {
		args = append(args, "--store", pg.DSN(t))
	}
	p := startProc(t, t.TempDir(), freeAddr(t), args...)
	return &closedHub{URL: p.URL, Admin: admin}
}

// searchTeam is alice and bob in the open channels ops and dev; carol with
// a private channel vault and a DM with bob.
type searchTeam struct {
	h                 *closedHub
	alice, bob, carol key
	a, b, c           *raw
}

func startSearchTeam(t *testing.T) *searchTeam {
	h := startHiveProc(t, newKey(t))
	st := &searchTeam{h: h, alice: newKey(t), bob: newKey(t), carol: newKey(t)}
	admin := h.as(t, h.Admin)
	for _, k := range []key{st.alice, st.bob, st.carol} {
		h.addMember(t, admin, k)
	}
	st.a, st.b, st.c = h.as(t, st.alice), h.as(t, st.bob), h.as(t, st.carol)
	createChannel(t, st.a, st.alice, "ops", "open")
	createChannel(t, st.a, st.alice, "dev", "open")
	st.b.must(st.bob.sign(t, 9021, "", nostr.Tag{"h", "ops"}))
	createChannel(t, st.c, st.carol, "vault", "private")
	st.c.must(st.carol.sign(t, 9007, "", nostr.Tag{"h", "dm-carol-bob"}, nostr.Tag{"type", "dm"}, nostr.Tag{"p", st.bob.pk}))
	return st
}

// msg posts a kind 9 at created_at now+offset seconds.
func msg(t *testing.T, r *raw, k key, channel, text string, offset int64) *nostr.Event {
	t.Helper()
	ev := &nostr.Event{Kind: 9, CreatedAt: nostr.Timestamp(time.Now().Unix() + offset), Content: text, Tags: nostr.Tags{{"h", channel}}}
	ev.Sign(k.sk)
	return r.must(ev)
}

func idList(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID[:8]
	}
	return out
}

func (st *searchTeam) search(t *testing.T, r *raw, f nostr.Filter, want ...*nostr.Event) {
	t.Helper()
	got, closed := r.req("q", f)
	if closed != "" {
		t.Fatalf("search %q: CLOSED %s", f.Search, closed)
	}
	if !slices.Equal(idList(got), idList(want)) {
		t.Errorf("search %q (h %v, authors %d, since %v, until %v): got %v, want %v", f.Search, f.Tags["h"], len(f.Authors), f.Since, f.Until, idList(got), idList(want))
	}
}

func (st *searchTeam) count(t *testing.T, r *raw, f nostr.Filter) int {
	t.Helper()
	r.send([]any{"COUNT", "n", f})
	m := r.expect("COUNT")
	var c struct{ Count int }
	if err := json.Unmarshal(m[2], &c); err != nil {
		t.Fatal(err)
	}
	return c.Count
}

// TestSearchNIP50: NIP-50 over the real binary (on both logs): ranking,
// phrase, prefix, negation, #h, authors, since/until, limit after ranking,
// edits and deletions, syntax errors, the NIP-11 document.
func TestSearchNIP50(t *testing.T) {
	st := startSearchTeam(t)
	a, b := st.a, st.b
	close := msg(t, a, st.alice, "ops", "the canary rollout is ready for review by the team today", -50)
	far := msg(t, b, st.bob, "ops", "the canary is ready for review by the team today rollout", -40)
	phrase := msg(t, a, st.alice, "ops", "we need a plan: rollback first, then deploy", -30)
	rolling := msg(t, b, st.bob, "ops", "rolling restart of the database cluster", -20)
	dev := msg(t, a, st.alice, "dev", "rollback plan for the dev sandbox", -10)

	st.search(t, a, nostr.Filter{Search: "canary rollout"}, close, far)
	st.search(t, a, nostr.Filter{Search: "canary rollout", Limit: 1}, close)
	st.search(t, a, nostr.Filter{Search: `"plan rollback"`}, phrase)
	st.search(t, a, nostr.Filter{Search: "rollback -sandbox"}, phrase)
	st.search(t, a, nostr.Filter{Search: "rollback plan", Tags: nostr.TagMap{"h": {"dev"}}}, dev)
	st.search(t, a, nostr.Filter{Search: "canary", Authors: []string{st.bob.pk}}, far)
	since, until := close.CreatedAt+1, rolling.CreatedAt
	st.search(t, a, nostr.Filter{Search: "roll* -canary", Since: &since, Until: &until}, rolling, phrase)
	got, _ := a.req("q", nostr.Filter{Search: "roll*"})
	if len(got) != 5 {
		t.Errorf("prefix roll*: %d results, want rollout, rollback and rolling (5)", len(got))
	}

	// edited: found by its new text, not its old
	a.must(st.alice.sign(t, 40003, "the migration checklist is ready", nostr.Tag{"h", "ops"}, nostr.Tag{"e", close.ID}))
	st.search(t, b, nostr.Filter{Search: "migration checklist"}, close)
	st.search(t, b, nostr.Filter{Search: "canary rollout"}, far)
	// deleted (in channel, and by its author): gone, and not counted
	a.must(st.alice.sign(t, 9005, "", nostr.Tag{"h", "ops"}, nostr.Tag{"e", far.ID}))
	b.must(st.bob.sign(t, 5, "", nostr.Tag{"e", rolling.ID}))
	st.search(t, b, nostr.Filter{Search: "canary"})
	st.search(t, b, nostr.Filter{Search: "rolling"})
	if n := st.count(t, b, nostr.Filter{Search: "roll*"}); n != 2 {
		t.Errorf("COUNT roll* after the deletions = %d, want 2 (phrase, dev)", n)
	}

	for q, reason := range map[string]string{
		`"unclosed`: `invalid: search: a quoted phrase is not closed`,
		"-only":     "invalid: search: give at least one word to look for",
		"ro*ll":     `invalid: search: "ro*ll": * may only end a word`,
	} {
		if _, closed := a.req("bad", nostr.Filter{Search: q}); !strings.HasPrefix(closed, reason) {
			t.Errorf("search %q: CLOSED %q, want %q...", q, closed, reason)
		}
	}

	if doc := fetchNIP11(t, st.h.URL); !slices.Contains(doc.SupportedNIPs, 50) {
		t.Fatalf("NIP-11 supported_nips %v: 50 missing", doc.SupportedNIPs)
	}
}

// TestSearchReadRule: a message in a private channel or a DM is never
// returned, ranked into a limit, nor counted for a non-member, however well
// it matches; its members find it.
func TestSearchReadRule(t *testing.T) {
	st := startSearchTeam(t)
	visible := msg(t, st.a, st.alice, "ops", "quarterly budget numbers, draft", -30)
	secret := msg(t, st.c, st.carol, "vault", "quarterly budget quarterly budget quarterly budget", -20)
	dm := msg(t, st.c, st.carol, "dm-carol-bob", "quarterly budget: bob, the real one", -10)
	f := nostr.Filter{Search: "quarterly budget"}
	st.search(t, st.a, f, visible)
	st.search(t, st.a, nostr.Filter{Search: "quarterly budget", Limit: 1}, visible)
	st.search(t, st.a, nostr.Filter{Search: "quarterly in:vault"})
	st.search(t, st.a, nostr.Filter{Search: "quarterly", Authors: []string{st.carol.pk}})
	if n := st.count(t, st.a, f); n != 1 {
		t.Errorf("COUNT for a non-member = %d, want 1", n)
	}
	if n := st.count(t, st.b, f); n != 2 {
		t.Errorf("COUNT for bob (ops is open, the DM is his) = %d, want 2", n)
	}
	got, _ := st.c.req("q", f)
	if !slices.Contains(idList(got), secret.ID[:8]) || !slices.Contains(idList(got), dm.ID[:8]) || len(got) != 3 {
		t.Errorf("carol, member of all three: %v", idList(got))
	}
	// the hub's own check: #h naming the private channel is refused outright
	if _, closed := st.a.req("q", nostr.Filter{Search: "quarterly", Tags: nostr.TagMap{"h": {"vault"}}}); !strings.HasPrefix(closed, "restricted: #h names channel vault") {
		t.Errorf("search with #h of a private channel: CLOSED %q", closed)
	}
}

// TestSearchREQEndsAtEOSE: a search subscription gets no live events; in a
// REQ mixing a search and a plain filter, only the plain one stays live.
func TestSearchREQEndsAtEOSE(t *testing.T) {
	st := startSearchTeam(t)
	a := st.a
	msg(t, a, st.alice, "ops", "standup notes", -10)
	a.send([]any{"REQ", "mixed", nostr.Filter{Search: "standup"}, nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"dev"}}, Limit: 0}})
	a.send([]any{"REQ", "only", nostr.Filter{Search: "standup"}})
	for eose := 0; eose < 2; {
		if m := a.next(5 * time.Second); str(m[0]) == "EOSE" {
			eose++
		}
	}
	msg(t, st.b, st.bob, "ops", "standup notes again", 0)
	devLive := msg(t, st.h.as(t, st.alice), st.alice, "dev", "standup in dev", 0)
	seen := map[string][]string{}
	for {
		m := a.next(5 * time.Second)
		if str(m[0]) != "EVENT" {
			continue
		}
		var ev nostr.Event
		json.Unmarshal(m[2], &ev)
		seen[str(m[1])] = append(seen[str(m[1])], ev.ID)
		if ev.ID == devLive.ID {
			break
		}
	}
	// whatever the fan-out queued with the dev message is in by now
	a.send([]any{"REQ", "ping", nostr.Filter{Limit: 0}})
	for {
		m := a.next(5 * time.Second)
		if str(m[0]) == "EOSE" && str(m[1]) == "ping" {
			break
		}
		if str(m[0]) == "EVENT" {
			seen[str(m[1])] = append(seen[str(m[1])], "late")
		}
	}
	if len(seen["only"]) != 0 || !slices.Equal(seen["mixed"], []string{devLive.ID}) {
		t.Fatalf("live events after EOSE: search-only sub %v, mixed sub %v; want none, and only the dev message", seen["only"], seen["mixed"])
	}
}
