package test

import (
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// ids lists the ids of evs.
func idsOf(evs []*nostr.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.ID)
	}
	return out
}

// mustRead runs a REQ that must not be refused and returns the ids it got.
func mustRead(t *testing.T, r *raw, f nostr.Filter) []string {
	t.Helper()
	evs, closed := r.req("q", f)
	if closed != "" {
		t.Fatalf("REQ %v refused: %s", f, closed)
	}
	return idsOf(evs)
}

func holds(ids []string, id string) bool { return strings.Contains(strings.Join(ids, ","), id) }

// Issue 17 item 2, through the real hub, for every kind class: a paired
// device reads (#h, ids, kind-less filters, DMs, author-only kinds), writes
// (content, reactions, edits, deletes, membership, channel admin) as its
// owner while its attestation stands; an agent of the same owner does not;
// a revoked device loses all of it at once.
func TestDeviceActsAsOwnerEveryKindClass(t *testing.T) {
	h := startHubProc(t)
	w := startWriteTeam(t, h)
	alice, bob := w.alice, w.bob
	tm := struct {
		a, b, ag *raw
		agent    key
		tag      nostr.Tag
	}{a: w.a, b: w.b}
	tm.agent, tm.tag, tm.ag = agentOf(t, h, alice)
	dev, phone := newKey(t), newKey(t)
	dtag, ptag := deviceTag(t, alice, dev, time.Hour), deviceTag(t, alice, phone, time.Hour)
	d, p := h.as(t, dev, dtag), h.as(t, phone, ptag)
	d.must(dev.sign(t, 0, `{"name":"laptop"}`, dtag, nostr.Tag{"device"}))
	p.must(phone.sign(t, 0, `{"name":"phone"}`, ptag, nostr.Tag{"device"}))
	tm.ag.must(tm.agent.sign(t, 0, `{"name":"bot"}`, tm.tag))

	secret := tm.a.must(alice.sign(t, 9, "the owner's secret", nostr.Tag{"h", "priv"}))
	inDM := tm.b.must(bob.sign(t, 9, "to alice", nostr.Tag{"h", "dm-ab"}))

	// Reads: channel content, by #h, by id and kind-less; the DM too.
	if got := mustRead(t, d, nostr.Filter{Tags: nostr.TagMap{"h": {"priv"}}}); !holds(got, secret.ID) {
		t.Fatalf("#h vault: %v", got)
	}
	if got := mustRead(t, d, nostr.Filter{IDs: []string{secret.ID, inDM.ID}}); len(got) != 2 {
		t.Fatalf("ids: %v", got)
	}
	if got := mustRead(t, d, nostr.Filter{Kinds: []int{9}}); !holds(got, secret.ID) || !holds(got, inDM.ID) {
		t.Fatalf("kind-less channel filter: %v", got)
	}
	for who, r := range map[string]*raw{"bob": tm.b, "the agent": tm.ag} {
		if _, closed := r.req("q", nostr.Filter{Tags: nostr.TagMap{"h": {"priv"}}}); closed != "restricted: #h names channel priv, which you are not a member of" {
			t.Fatalf("%s reads vault: %q", who, closed)
		}
	}

	// Writes: content in the owner's private channel and DM.
	mine := d.must(dev.sign(t, 9, "from the laptop", nostr.Tag{"h", "priv"}))
	d.must(dev.sign(t, 9, "laptop in the DM", nostr.Tag{"h", "dm-ab"}))
	tm.ag.refused(tm.agent.sign(t, 9, "the agent", nostr.Tag{"h", "priv"}), "restricted: not a member of channel priv")
	// Reactions are the owner's: one per emoji, whichever key sends it.
	d.must(dev.sign(t, 7, "👍", nostr.Tag{"e", secret.ID}, nostr.Tag{"h", "priv"}))
	tm.a.refused(alice.sign(t, 7, "👍", nostr.Tag{"e", secret.ID}, nostr.Tag{"h", "priv"}), "duplicate: you already reacted")
	// Edits and deletes: of the owner's messages and of the devices', from any of them.
	d.must(dev.sign(t, 40003, "edited by the laptop", nostr.Tag{"e", secret.ID}, nostr.Tag{"h", "priv"}))
	p.must(phone.sign(t, 40003, "edited by the phone", nostr.Tag{"e", mine.ID}, nostr.Tag{"h", "priv"}))
	tm.a.must(alice.sign(t, 40003, "edited by the owner", nostr.Tag{"e", mine.ID}, nostr.Tag{"h", "priv"}))
	tm.ag.refused(tm.agent.sign(t, 40003, "edited by the agent", nostr.Tag{"e", secret.ID}, nostr.Tag{"h", "priv"}), "restricted: not a member of channel priv")
	doomed := tm.a.must(alice.sign(t, 9, "to delete", nostr.Tag{"h", "priv"}))
	p.must(phone.sign(t, 9005, "", nostr.Tag{"e", doomed.ID}, nostr.Tag{"h", "priv"}))
	tm.b.refused(bob.sign(t, 40003, "bob edits", nostr.Tag{"e", secret.ID}, nostr.Tag{"h", "priv"}), "restricted: not a member of channel priv")

	// Ephemeral kinds obey the same rule: typing in the owner's private channel.
	d.must(dev.sign(t, 20002, "", nostr.Tag{"h", "priv"}))
	tm.ag.refused(tm.agent.sign(t, 20002, "", nostr.Tag{"h", "priv"}), "restricted: not a member of channel priv")
	// NIP-09 deletes only the key's own events (the store's rule); 9005 is how a
	// device removes its owner's message (above).
	own := d.must(dev.sign(t, 9, "laptop, to delete", nostr.Tag{"h", "priv"}))
	d.must(dev.sign(t, 5, "", nostr.Tag{"e", own.ID}))
	if got := mustRead(t, tm.a, nostr.Filter{IDs: []string{own.ID}}); len(got) != 0 {
		t.Fatalf("the laptop's deleted message is still stored: %v", got)
	}
	// Hub-signed kinds stay the hub's.
	d.refused(dev.sign(t, 39000, "", nostr.Tag{"d", "priv"}), "restricted: kind 39000 is signed by the hub only")

	// Membership: joining, and channel admin with the owner's role.
	createChannel(t, w.m, w.mallory, "mall", "open")
	tm.a.refused(alice.sign(t, 9022, "", nostr.Tag{"h", "mall"}), "invalid: not a member of mall")
	d.must(dev.sign(t, 9021, "", nostr.Tag{"h", "mall"}))
	tm.a.refused(alice.sign(t, 9021, "", nostr.Tag{"h", "mall"}), "duplicate: already a member of mall")
	p.must(phone.sign(t, 9022, "", nostr.Tag{"h", "mall"}))
	tm.a.must(alice.sign(t, 9021, "", nostr.Tag{"h", "mall"}))
	d.must(dev.sign(t, 9000, "", nostr.Tag{"h", "priv"}, nostr.Tag{"p", bob.pk}))
	if got := mustRead(t, tm.b, nostr.Filter{Tags: nostr.TagMap{"h": {"priv"}}}); !holds(got, secret.ID) {
		t.Fatalf("bob after the device added him: %v", got)
	}
	tm.ag.refused(tm.agent.sign(t, 9000, "", nostr.Tag{"h", "priv"}, nostr.Tag{"p", tm.agent.pk}), "restricted: only a channel owner or admin may add members to priv")

	// Author-only (read-state): the member's keys read each other's, nobody else does.
	ownRS := tm.a.must(alice.sign(t, 30078, "10", nostr.Tag{"d", "read-state:priv"}))
	devRS := d.must(dev.sign(t, 30078, "20", nostr.Tag{"d", "read-state:priv"}))
	for who, r := range map[string]*raw{"alice": tm.a, "the laptop": d, "the phone": p} {
		got := mustRead(t, r, nostr.Filter{Kinds: []int{30078}})
		if len(got) != 2 || !holds(got, ownRS.ID) || !holds(got, devRS.ID) {
			t.Fatalf("%s reads the member's read state: %v", who, got)
		}
		if got := mustRead(t, r, nostr.Filter{Kinds: []int{30078}, Authors: []string{alice.pk, dev.pk}}); len(got) != 2 {
			t.Fatalf("%s by authors: %v", who, got)
		}
	}
	for who, r := range map[string]*raw{"bob": tm.b, "the agent": tm.ag} {
		if got := mustRead(t, r, nostr.Filter{Kinds: []int{30078}}); len(got) != 0 {
			t.Fatalf("%s reads alice's read state: %v", who, got)
		}
		if _, closed := r.req("q", nostr.Filter{Kinds: []int{30078}, Authors: []string{alice.pk}}); !strings.HasPrefix(closed, "restricted: kind 30078 is readable by its author only") {
			t.Fatalf("%s asks for alice's read state: %q", who, closed)
		}
	}

	// Revoked: cut off at once; the owner keeps what it wrote.
	aliceKeys, _ := identity.KeysFromSecretHex(alice.sk)
	rev, _ := identity.NewRevocation(aliceKeys, dev.pk, "lost", time.Now().Unix())
	tm.a.must(rev)
	select {
	case <-closedAt(d):
	case <-time.After(5 * time.Second):
		t.Fatal("the revoked device's connection stays open")
	}
	again := dialRaw(t, h.URL)
	if ok, msg := again.authWith(dev, h.URL, 0, dtag); ok || msg != "restricted: this attestation was revoked by its owner; ask for a new one" {
		t.Fatalf("revoked device AUTH: %v %q", ok, msg)
	}
	if got := mustRead(t, tm.a, nostr.Filter{Kinds: []int{30078}}); len(got) != 2 {
		t.Fatalf("the owner's read state after the revocation: %v", got)
	}
	// The phone still edits the revoked laptop's message.
	p.must(phone.sign(t, 40003, "the phone after", nostr.Tag{"e", mine.ID}, nostr.Tag{"h", "priv"}))
	h.verifyReplay(t)
}
