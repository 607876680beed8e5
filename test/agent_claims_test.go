package test

import (
	"strconv"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// binaryTeam runs the real `hive serve` with alice and mallory as members
// and alice's agent authenticated with her attestation; the agent has
// published no profile, so the hub saw the attestation only at AUTH.
func binaryTeam(t *testing.T) (h *closedHub, alice, mallory, agent key, ag *raw) {
	t.Helper()
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	h = &closedHub{URL: p.URL, Admin: admin}
	adm := h.as(t, admin)
	alice, mallory, agent = newKey(t), newKey(t), newKey(t)
	h.addMember(t, adm, alice)
	h.addMember(t, adm, mallory)
	ag = h.as(t, agent, attest(t, alice, agent, time.Hour))
	return h, alice, mallory, agent, ag
}

// TestAgentStatusExpirationBounded: an agent status (kind 10451) that
// would show the agent's state for a year is refused with the bound; one
// within it is stored.
func TestAgentStatusExpirationBounded(t *testing.T) {
	_, alice, _, agent, ag := binaryTeam(t)
	ag.must(agent.sign(t, 0, `{"name":"bot"}`, attest(t, alice, agent, time.Hour))) // an agent status needs the agent's owner on record
	now := time.Now().Unix()
	status := func(life int64) *nostr.Event {
		return agent.sign(t, 10451, `{"state":"working","connected":true}`, nostr.Tag{"expiration", strconv.FormatInt(now+life, 10)})
	}
	ev := status(365 * 24 * 3600)
	ev.CreatedAt = nostr.Timestamp(now)
	ev.Sign(agent.sk)
	ok, msg := ag.publish(ev)
	if want := "invalid: an agent status (kind 10451) expires at most 600 s (10 minutes) after its created_at; this one expires 31536000 s after it"; ok || msg != want {
		t.Fatalf("a status expiring in a year: ok=%v %q, want %q", ok, msg, want)
	}
	ev = status(600)
	ev.CreatedAt = nostr.Timestamp(now)
	ev.Sign(agent.sk)
	ag.must(ev)
}

// TestStrangersRevocationRefused: mallory, a member, signs a kind 30450
// revocation of alice's agent; the hub refuses it with the reason, and
// alice's own revocation still works (and closes the agent's connection).
func TestStrangersRevocationRefused(t *testing.T) {
	h, alice, mallory, agent, ag := binaryTeam(t)
	m := h.as(t, mallory)
	mk, _ := identity.KeysFromSecretHex(mallory.sk)
	rev, err := identity.NewRevocation(mk, agent.pk, "mine now", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	ok, msg := m.publish(rev)
	if want := "restricted: only the owner named in an attestation of this key that the hub has seen may revoke it; the hub has seen it attested by another owner, never by you"; ok || msg != want {
		t.Fatalf("mallory's revocation of alice's agent: ok=%v %q, want %q", ok, msg, want)
	}
	if evs, _ := m.req("revs", nostr.Filter{Kinds: []int{30450}, Authors: []string{mallory.pk}}); len(evs) != 0 {
		t.Fatalf("mallory's revocation was stored: %v", evs)
	}
	closed := closedAt(ag)
	ak, _ := identity.KeysFromSecretHex(alice.sk)
	rev, err = identity.NewRevocation(ak, agent.pk, "rotated", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	h.as(t, alice).must(rev)
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("alice's revocation did not close her agent's connection")
	}
}

// TestRevocationSeenAtAuthSurvivesReplay: a revocation accepted because the
// hub saw the attestation at AUTH (no profile in the log) stays in force
// when the projections are rebuilt from the log, as at every start, and
// replay --verify (which rebuilds from the log alone) finds no difference.
func TestRevocationSeenAtAuthSurvivesReplay(t *testing.T) {
	h, tm := startTeam(t)
	ak, _ := identity.KeysFromSecretHex(tm.alice.sk)
	rev, err := identity.NewRevocation(ak, tm.agent.pk, "rotated", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	tm.a.must(rev)
	if diffs, _ := verifyLog(t, h); len(diffs) != 0 {
		t.Fatalf("replay --verify after a revocation of a key seen only at AUTH: %v", diffs)
	}
	if _, refused, err := h.Hub.Rebuild(ctxT(t)); err != nil || refused != 0 {
		t.Fatalf("rebuild: %d refused, %v", refused, err)
	}
	c := dialRaw(t, h.URL)
	if ok, msg := c.authWith(tm.agent, h.URL, 0, tm.tag); ok || msg != "restricted: this attestation was revoked by its owner; ask for a new one" {
		t.Fatalf("the revoked agent's AUTH after a rebuild: ok=%v %q", ok, msg)
	}
}
