package test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/postgres"
	"github.com/nbd-wtf/go-nostr"
)

// startPair runs two closed hubs, A and B, as two instances sharing one
// PostgreSQL log.
func startPair(t *testing.T) (a, b *closedHub) {
	t.Helper()
	dsn := pg.DSN(t)
	open := func(o store.Options) (store.Log, error) { return postgres.Open(ctxT(t), dsn, o) }
	admin := newKey(t)
	a = startClosedHubOn(t, filepath.Join(t.TempDir(), "a.db"), open, dsn, admin)
	b = startClosedHubOn(t, filepath.Join(t.TempDir(), "b.db"), open, dsn, admin)
	return a, b
}

// nextEvent waits for the next EVENT of subscription id on r.
func nextEvent(r *raw, id string, within time.Duration) *nostr.Event {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		m := r.next(time.Until(deadline))
		if str(m[0]) == "EVENT" && str(m[1]) == id {
			ev := &nostr.Event{}
			if err := json.Unmarshal(m[2], ev); err != nil {
				r.t.Fatal(err)
			}
			return ev
		}
	}
	r.t.Fatalf("no event on %s within %v", id, within)
	return nil
}

// authWithin retries AUTH on fresh connections to h until k gets in, and
// returns how long that took after start.
func authWithin(t *testing.T, h *closedHub, k key, start time.Time, limit time.Duration, extra ...nostr.Tag) (*raw, time.Duration) {
	t.Helper()
	for {
		r := dialRaw(t, h.URL)
		if ok, msg := r.authWith(k, h.URL, 0, extra...); ok && msg == "" { // not a NIP-43 guest
			return r, time.Since(start)
		} else if time.Since(start) > limit {
			t.Fatalf("still refused %v after the change on the other instance: %s", limit, msg)
		}
		r.ws.Close()
		time.Sleep(20 * time.Millisecond)
	}
}

// kickedWithin checks that what (a removal or revocation published on A by
// act) closes the connection r to B within a second.
func kickedWithin(t *testing.T, r *raw, what string, act func()) {
	t.Helper()
	closed := closedAt(r)
	start := time.Now()
	act()
	select {
	case at := <-closed:
		t.Logf("%s on A closed the connection on B after %v", what, at.Sub(start))
		if at.Sub(start) > time.Second {
			t.Errorf("%s on A closed the connection on B after %v, want within 1s", what, at.Sub(start))
		}
	case <-time.After(3 * time.Second):
		t.Fatalf("still connected to B 3s after the %s on A", what)
	}
}

// TestInstancesShareStateAndLiveEvents: membership granted on A admits on
// B; messages published on A reach B's live subscribers and the other way
// round; a removal and a revocation on A close the connections on B, each
// within a second.
func TestInstancesShareStateAndLiveEvents(t *testing.T) {
	a, b := startPair(t)
	alice, bob, agent := newKey(t), newKey(t), newKey(t)
	adminA := a.as(t, a.Admin)

	start := time.Now()
	a.addMember(t, adminA, alice)
	aliceB, took := authWithin(t, b, alice, start, 3*time.Second)
	t.Logf("membership granted on A admits on B after %v", took)
	if took > time.Second {
		t.Errorf("membership reached B after %v, want within 1s", took)
	}
	a.addMember(t, adminA, bob)
	bobB, _ := authWithin(t, b, bob, time.Now(), 3*time.Second)
	aliceA := a.as(t, alice)

	createChannel(t, aliceA, alice, "ops", "open")
	if evs, closed := aliceB.req("live", nostr.Filter{Tags: nostr.TagMap{"h": {"ops"}}, Kinds: []int{9}}); closed != "" || len(evs) != 0 {
		t.Fatalf("subscribing on B: %d events, closed %q", len(evs), closed)
	}
	sent := aliceA.must(alice.sign(t, 9, "from A", nostr.Tag{"h", "ops"}))
	if got := nextEvent(aliceB, "live", 3*time.Second); got.ID != sent.ID {
		t.Fatalf("B delivered %s, want the message published on A", got.ID)
	}
	back := bobB.must(bob.sign(t, 9, "from B", nostr.Tag{"h", "ops"}))
	if got := nextEvent(aliceB, "live", 3*time.Second); got.ID != back.ID {
		t.Fatalf("B delivered %s, want B's own message", got.ID)
	}
	// ephemeral events (never stored) cross instances too
	if evs, closed := aliceB.req("typing", nostr.Filter{Tags: nostr.TagMap{"h": {"ops"}}, Kinds: []int{20002}}); closed != "" || len(evs) != 0 {
		t.Fatalf("subscribing to typing on B: %d events, closed %q", len(evs), closed)
	}
	typing := aliceA.must(alice.sign(t, 20002, "", nostr.Tag{"h", "ops"}))
	if got := nextEvent(aliceB, "typing", 3*time.Second); got.ID != typing.ID {
		t.Fatalf("B delivered %s, want the typing event sent to A", got.ID)
	}

	// a removal on A closes bob's connection on B
	kickedWithin(t, bobB, "removal", func() { adminA.must(a.Admin.sign(t, 8001, "", nostr.Tag{"p", bob.pk})) })

	// a revocation on A closes the agent's connection on B
	tag := attest(t, alice, agent, time.Hour)
	agB, _ := authWithin(t, b, agent, time.Now(), 3*time.Second, tag)
	ak, _ := identity.KeysFromSecretHex(alice.sk)
	rev, err := identity.NewRevocation(ak, agent.pk, "rotated", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	kickedWithin(t, agB, "revocation", func() { aliceA.must(rev) })
	notAdmitted(t, dialRaw(t, b.URL), bob, b.URL) // removed: a NIP-43 guest on B
}

// race sends ea on ra and eb on rb before reading either OK, and returns
// both answers.
func race(ra, rb *raw, ea, eb *nostr.Event) (okA, okB bool, msgA, msgB string) {
	ra.send([]any{"EVENT", ea})
	rb.send([]any{"EVENT", eb})
	okOf := func(r *raw, id string) (bool, string) {
		for {
			m := r.expect("OK")
			if str(m[1]) == id {
				return string(m[2]) == "true", str(m[3])
			}
		}
	}
	okA, msgA = okOf(ra, ea.ID)
	okB, msgB = okOf(rb, eb.ID)
	return okA, okB, msgA, msgB
}

// TestInstancesEnforceRulesOnce: rules written for one writer hold when two
// instances take conflicting writes at the same moment: one channel per id,
// a channel never loses its last owner, one reaction per author and content.
func TestInstancesEnforceRulesOnce(t *testing.T) {
	a, b := startPair(t)
	alice, bob := newKey(t), newKey(t)
	adminA := a.as(t, a.Admin)
	a.addMember(t, adminA, alice)
	a.addMember(t, adminA, bob)
	aliceA := a.as(t, alice)
	aliceB, _ := authWithin(t, b, alice, time.Now(), 3*time.Second)
	bobB, _ := authWithin(t, b, bob, time.Now(), 3*time.Second)

	for i := 0; i < 5; i++ {
		id := fmt.Sprint("race-", i)
		okA, okB, msgA, msgB := race(aliceA, bobB,
			alice.sign(t, 9007, "", nostr.Tag{"h", id}, nostr.Tag{"name", id}, nostr.Tag{"visibility", "open"}),
			bob.sign(t, 9007, "", nostr.Tag{"h", id}, nostr.Tag{"name", id}, nostr.Tag{"visibility", "open"}))
		if okA == okB {
			t.Fatalf("both instances answered %v creating channel %s (%q, %q); want exactly one", okA, id, msgA, msgB)
		}
	}

	createChannel(t, aliceA, alice, "duo", "private")
	aliceA.must(alice.sign(t, 9000, "", nostr.Tag{"h", "duo"}, nostr.Tag{"p", bob.pk, "owner"}))
	okA, okB, msgA, msgB := race(aliceA, bobB,
		alice.sign(t, 9022, "", nostr.Tag{"h", "duo"}), bob.sign(t, 9022, "", nostr.Tag{"h", "duo"}))
	if okA == okB {
		t.Fatalf("both owners leaving on two instances: %v %q / %v %q; want exactly one to stay", okA, msgA, okB, msgB)
	}
	db := a.rawDB(t)
	defer db.Close()
	var owners int
	db.QueryRow(`SELECT COUNT(*) FROM channel_members WHERE channel = 'duo' AND role = 'owner'`).Scan(&owners)
	if owners != 1 {
		t.Fatalf("channel duo has %d owners after the race, want 1", owners)
	}

	createChannel(t, aliceA, alice, "pub", "open")
	msg := aliceA.must(alice.sign(t, 9, "hi", nostr.Tag{"h", "pub"}))
	like := func(at int64) *nostr.Event {
		ev := &nostr.Event{Kind: 7, CreatedAt: nostr.Timestamp(at), Content: "+", Tags: nostr.Tags{{"e", msg.ID}}}
		ev.Sign(alice.sk)
		return ev
	}
	now := time.Now().Unix()
	race(aliceA, aliceB, like(now), like(now+1))
	var likes int
	db.QueryRow(`SELECT COUNT(*) FROM reactions WHERE target = '` + msg.ID + `'`).Scan(&likes)
	stored := 0
	db.QueryRow(`SELECT COUNT(*) FROM events WHERE kind = 7`).Scan(&stored)
	if likes != 1 || stored != 1 {
		t.Fatalf("the same reaction sent to two instances: %d reaction rows, %d stored events; want 1 and 1", likes, stored)
	}
}
