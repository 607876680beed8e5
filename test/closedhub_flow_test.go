package test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/postgres"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// Two members and an agent in open, private and DM channels, through
// go-nostr's client where it can speak for itself.
func TestTeamHappyPath(t *testing.T) {
	h, tm := startTeam(t)
	alice, bob, agent, a, b, ag, tag := tm.alice, tm.bob, tm.agent, tm.a, tm.b, tm.ag, tm.tag
	// the agent's profile records its owner
	ag.must(agent.sign(t, 0, `{"name":"helper","bot":true}`, tag, nostr.Tag{"bot"}))

	// open channel: create, bob joins, thread, reaction, edit, delete
	createChannel(t, a, alice, "general", "open")
	b.must(bob.sign(t, 9021, "", nostr.Tag{"h", "general"}))
	b.refused(bob.sign(t, 9021, "again", nostr.Tag{"h", "general"}), "duplicate: already a member of general")
	root := a.must(alice.sign(t, 9, "hello team", nostr.Tag{"h", "general"}, nostr.Tag{"p", bob.pk, "", "mention"}))
	reply := b.must(bob.sign(t, 9, "hi!", nostr.Tag{"h", "general"}, nostr.Tag{"e", root.ID, "", "root"}))
	nested := a.must(alice.sign(t, 9, "nested", nostr.Tag{"h", "general"}, nostr.Tag{"e", root.ID, "", "root"}, nostr.Tag{"e", reply.ID, "", "reply"}))
	b.refused(bob.sign(t, 9, "bad root", nostr.Tag{"h", "general"}, nostr.Tag{"e", reply.ID, "", "root"}, nostr.Tag{"e", nested.ID, "", "reply"}), "invalid: thread root … does not match the parent's root …")
	b.refused(bob.sign(t, 9, "no root", nostr.Tag{"h", "general"}, nostr.Tag{"e", reply.ID, "", "reply"}), "invalid: a reply to a reply needs a root-marked e tag for …")
	b.must(bob.sign(t, 7, "+", nostr.Tag{"e", root.ID}))
	b.refused(bob.sign(t, 7, "+", nostr.Tag{"e", root.ID}, nostr.Tag{"k", "9"}), "duplicate: you already reacted \"+\" to this event")
	b.must(bob.sign(t, 7, "🎉", nostr.Tag{"e", root.ID}))
	a.must(alice.sign(t, 40003, "hello team!", nostr.Tag{"h", "general"}, nostr.Tag{"e", root.ID}))
	b.refused(bob.sign(t, 40003, "hijack", nostr.Tag{"h", "general"}, nostr.Tag{"e", root.ID}), "restricted: only the author or the author's owner may edit this message")
	agentMsg := ag.must(agent.sign(t, 9, "agent reporting", nostr.Tag{"h", "general"}))
	a.must(alice.sign(t, 40003, "agent reporting (edited by owner)", nostr.Tag{"h", "general"}, nostr.Tag{"e", agentMsg.ID}))
	b.refused(bob.sign(t, 9005, "", nostr.Tag{"h", "general"}, nostr.Tag{"e", agentMsg.ID}), "restricted: only the author, the author's owner or a channel admin may delete this message")
	a.must(alice.sign(t, 9005, "", nostr.Tag{"h", "general"}, nostr.Tag{"e", agentMsg.ID}))
	a.refused(alice.sign(t, 9022, "", nostr.Tag{"h", "general"}), "invalid: … is the last owner of general; make someone else owner first") // last owner
	if evs, closed := b.req("byid", nostr.Filter{IDs: []string{root.ID, reply.ID}}); closed != "" || len(evs) != 2 {
		t.Fatalf("plain ids lookup of readable events: %d events, %q", len(evs), closed)
	}

	// private channel with the agent as a bot
	createChannel(t, a, alice, "ops", "private")
	a.must(alice.sign(t, 9000, "", nostr.Tag{"h", "ops"}, nostr.Tag{"p", agent.pk, "bot"}))
	ag.must(agent.sign(t, 9, "deploying", nostr.Tag{"h", "ops"}))
	b.refused(bob.sign(t, 9, "can I?", nostr.Tag{"h", "ops"}), "restricted: not a member of channel ops")

	// DM between alice and bob
	createChannel(t, a, alice, "dm-ab", "private", nostr.Tag{"type", "dm"}, nostr.Tag{"p", bob.pk})
	b.must(bob.sign(t, 9, "psst", nostr.Tag{"h", "dm-ab"}))
	a.refused(alice.sign(t, 9000, "", nostr.Tag{"h", "dm-ab"}, nostr.Tag{"p", agent.pk}), "restricted: a DM's participants are fixed; open a new DM")
	if _, closed := ag.req("dm", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"dm-ab"}}}); !hasPrefix(closed, "restricted:") {
		t.Fatalf("agent read the DM: %q", closed)
	}

	// go-nostr's client reads what bob may read, with NIP-42
	client := connect(t, h.URL)
	ctx := ctxT(t)
	// The hub sends its challenge first on a connection and go-nostr reads
	// in order: once a query before AUTH has its answer (refused), the
	// challenge has been read.
	if evs, err := client.QuerySync(ctx, nostr.Filter{Kinds: []int{9}, Limit: 1}); err == nil && len(evs) != 0 {
		t.Fatalf("before AUTH go-nostr read %d events", len(evs))
	}
	if err := client.Auth(ctx, func(ev *nostr.Event) error { return ev.Sign(bob.sk) }); err != nil {
		t.Fatalf("go-nostr AUTH: %v", err)
	}
	evs, err := client.QuerySync(ctx, nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"general"}}})
	if err != nil || len(evs) != 4 {
		t.Fatalf("bob's history of general: %d events, %v", len(evs), err)
	}
	roster, _ := client.QuerySync(ctx, nostr.Filter{Kinds: []int{39002}, Tags: nostr.TagMap{"d": {"general"}}})
	if len(roster) != 1 || len(roster[0].Tags.GetAll([]string{"p"})) != 2 {
		t.Fatalf("39002 roster of general: %v", roster)
	}
	sys, _ := client.QuerySync(ctx, nostr.Filter{Kinds: []int{40099}, Tags: nostr.TagMap{"h": {"general"}}})
	var types []string
	for _, ev := range sys {
		var body map[string]string
		json.Unmarshal([]byte(ev.Content), &body)
		types = append(types, body["type"])
	}
	sort.Strings(types)
	if strings.Join(types, ",") != "channel_created,member_joined" {
		t.Fatalf("system rows of general: %v", types)
	}

	// observer frame: agent → owner only
	frame := func(to key) *nostr.Event {
		ck, _ := nip44.GenerateConversationKey(to.pk, agent.sk)
		ct, _ := nip44.Encrypt(`{"update":"thinking"}`, ck)
		return agent.sign(t, 24200, ct, nostr.Tag{"p", to.pk})
	}
	if _, closed := a.req("frames", nostr.Filter{Kinds: []int{24200}, Tags: nostr.TagMap{"p": {alice.pk}}}); closed != "" {
		t.Fatal(closed)
	}
	ag.must(frame(alice))
	ag.refused(frame(bob), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	if m := a.expect("EVENT"); str(m[1]) != "frames" {
		t.Fatalf("owner did not get the frame: %s", m)
	}
}

// Revoking an agent closes its live connection within a second and refuses its
// next AUTH; a newer attestation brings it back.
func TestRevocationKicksAgent(t *testing.T) {
	h := startClosedHub(t)
	owner, agent := newKey(t), newKey(t)
	admin := h.as(t, h.Admin)
	h.addMember(t, admin, owner)
	o := h.as(t, owner)
	tag := attest(t, owner, agent, time.Hour)
	ag := h.as(t, agent, tag)
	ag.must(agent.sign(t, 1, "working"))

	ownerKeys, _ := identity.KeysFromSecretHex(owner.sk)
	// the revocation is dated a few seconds back, so a fresh attestation made
	// now is newer than it
	rev, err := identity.NewRevocation(ownerKeys, agent.pk, "rotated", time.Now().Unix()-3)
	if err != nil {
		t.Fatal(err)
	}
	closed := closedAt(ag)
	start := time.Now()
	o.must(rev)
	acked := time.Now()
	select {
	case at := <-closed:
		kick := at.Sub(acked)
		t.Logf("time to kick: %v after OK (%v after publish)", kick, at.Sub(start))
		if at.Sub(start) > time.Second {
			t.Fatalf("agent kicked %v after the revocation, want < 1s", at.Sub(start))
		}
	case <-time.After(3 * time.Second):
		t.Fatal("revoked agent still connected after 3s")
	}
	c := dialRaw(t, h.URL)
	if ok, msg := c.authWith(agent, h.URL, 0, tag); ok || !hasPrefix(msg, "restricted:") {
		t.Fatalf("revoked agent re-AUTH: %v %q", ok, msg)
	}
	// a fresh attestation must be newer than the revocation
	now := time.Now().Unix()
	fresh, _ := identity.Attest(owner.sk, agent.pk, identity.Conditions{}.WithNotBefore(now-1).WithExpiry(now+3600))
	h.as(t, agent, fresh)
}

// The projections are a function of the log: dropping them and restarting
// gives the same state, and replay --verify finds no difference.
func TestProjectionsRebuildFromLog(t *testing.T) {
	h, tm := startTeam(t)
	alice, bob, agent, admin, a, b, ag, tag := tm.alice, tm.bob, tm.agent, tm.admin, tm.a, tm.b, tm.ag, tm.tag
	ag.must(agent.sign(t, 0, `{"name":"bot"}`, tag))
	for i := 0; i < 3; i++ {
		id := fmt.Sprint("c", i)
		createChannel(t, a, alice, id, []string{"open", "private"}[i%2])
		a.must(alice.sign(t, 9000, "", nostr.Tag{"h", id}, nostr.Tag{"p", bob.pk, "admin"}))
		m := b.must(bob.sign(t, 9, "msg", nostr.Tag{"h", id}))
		r := a.must(alice.sign(t, 7, "+", nostr.Tag{"e", m.ID}))
		if i == 1 {
			a.must(alice.sign(t, 5, "", nostr.Tag{"e", r.ID}))
			b.must(bob.sign(t, 9022, "", nostr.Tag{"h", id}))
		}
	}
	a.must(alice.sign(t, 9002, "", nostr.Tag{"h", "c0"}, nostr.Tag{"about", "renamed"}))
	admin.must(h.Admin.sign(t, 8000, "", nostr.Tag{"p", newKey(t).pk}, nostr.Tag{"role", "admin"}))
	ak, _ := identity.KeysFromSecretHex(alice.sk)
	rev, _ := identity.NewRevocation(ak, agent.pk, "", time.Now().Unix())
	a.must(rev)

	diffs, n := verifyLog(t, h)
	if len(diffs) != 0 || n == 0 {
		t.Fatalf("replay --verify after a mixed workload: %d state events, differences:\n%s", n, strings.Join(diffs, "\n"))
	}
	before := dumpProjections(t, h)
	h.stop()

	db := h.rawDB(t)
	for _, tbl := range []string{"hub_members", "channels", "channel_members", "agents", "revocations", "reactions"} {
		if _, err := db.Exec("DELETE FROM " + tbl); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if after := dumpProjections(t, h); after == before {
		t.Fatal("deleting the projections changed nothing; the test is broken")
	}
	startClosedHubAt(t, h.Path, h.Admin).stop()
	if after := dumpProjections(t, h); after != before {
		t.Fatalf("state after rebuild differs:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// verifyLog runs replay --verify over h's log: the differences between its
// projections and a scratch rebuild, and how many state events it replayed.
func verifyLog(t *testing.T, h *closedHub) ([]string, int) {
	t.Helper()
	live := h.rawDB(t)
	defer live.Close()
	var q store.Reader = live
	if h.DSN != "" {
		q = postgres.Reader(live)
	}
	diffs, n, err := hub.VerifyLog(context.Background(), q, h.Admin.pk, sqliteAt(filepath.Join(t.TempDir(), "scratch.db")))
	if err != nil {
		t.Fatal(err)
	}
	return diffs, n
}

func dumpProjections(t *testing.T, h *closedHub) string {
	db := h.rawDB(t)
	defer db.Close()
	return dumpProjectionsOf(t, db)
}

// dumpProjectionsOf renders the hub's projection tables in db, sorted.
func dumpProjectionsOf(t *testing.T, db *sql.DB) string {
	t.Helper()
	var out []string
	for _, q := range []string{
		"SELECT pubkey || ' ' || role FROM hub_members",
		"SELECT id || ' ' || name || ' ' || about || ' ' || visibility || ' ' || type || ' ' || deleted FROM channels",
		"SELECT channel || ' ' || pubkey || ' ' || role FROM channel_members",
		"SELECT agent || ' ' || owner FROM agents",
		"SELECT owner || ' ' || agent || ' ' || revoked_at FROM revocations",
		"SELECT target || ' ' || author || ' ' || content FROM reactions",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		rows.Close()
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
