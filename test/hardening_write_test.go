package test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// Regression tests for the write holes of issue 8 (items 1, 3, 4, 5, 6), each
// replaying the attack against the real `hive serve` binary on 127.0.0.1 and
// ending with `hive admin replay --verify` reporting no difference.

// Issue 8 item 1: every h tag must be writable by the author. An event may
// carry at most one h, and that channel's write rule holds for every kind.
func TestHardeningEveryHTagWritable(t *testing.T) {
	h := startHubProc(t)
	w := startWriteTeam(t, h)
	own := w.m.must(w.mallory.sign(t, 9, "mine", nostr.Tag{"h", "pub"}))
	revoked := newKey(t)

	type attack struct {
		name string
		ev   *nostr.Event
	}
	var attacks []attack
	for _, target := range []string{"priv", "dm-ab", "arch"} {
		two := []nostr.Tag{{"h", "pub"}, {"h", target}}
		attacks = append(attacks,
			attack{"kind 9 pub+" + target, w.mallory.sign(t, 9, "INJECTED", two...)},
			attack{"kind 1 pub+" + target, w.mallory.sign(t, 1, "INJECTED", two...)},
			attack{"typing pub+" + target, w.mallory.sign(t, 20002, "", two...)},
			attack{"kind 9 " + target + "+pub", w.mallory.sign(t, 9, "INJECTED", nostr.Tag{"h", target}, nostr.Tag{"h", "pub"})},
		)
	}
	single := nostr.Tag{"h", "priv"}
	attacks = append(attacks,
		attack{"kind 0 priv", w.mallory.sign(t, 0, `{"name":"INJECTED"}`, single)},
		attack{"kind 5 priv", w.mallory.sign(t, 5, "INJECTED", single, nostr.Tag{"e", own.ID})},
		attack{"kind 30450 priv", w.mallory.sign(t, 30450, "INJECTED", single, nostr.Tag{"d", revoked.pk}, nostr.Tag{"p", revoked.pk})},
		attack{"kind 1 priv", w.mallory.sign(t, 1, "INJECTED", single)},
		attack{"kind 1 dm", w.mallory.sign(t, 1, "INJECTED", nostr.Tag{"h", "dm-ab"})},
		attack{"kind 1 archived", w.mallory.sign(t, 1, "INJECTED", nostr.Tag{"h", "arch"})},
		attack{"kind 1 unknown channel", w.mallory.sign(t, 1, "INJECTED", nostr.Tag{"h", "not-yet"})},
		attack{"typing unknown channel", w.mallory.sign(t, 20002, "", nostr.Tag{"h", "not-yet"})},
		attack{"kind 1 empty h", w.mallory.sign(t, 1, "INJECTED", nostr.Tag{"h", ""})},
	)
	// Alice may write in both channels, yet one event still names one channel.
	attacks = append(attacks, attack{"member of both, two h", w.alice.sign(t, 9, "two", nostr.Tag{"h", "pub"}, nostr.Tag{"h", "priv"})})
	for _, at := range attacks {
		conn := w.m
		if at.ev.PubKey == w.alice.pk {
			conn = w.a
		}
		if ok, msg := conn.publish(at.ev); ok || !(hasPrefix(msg, "restricted:") || hasPrefix(msg, "invalid:")) {
			t.Errorf("%s: got ok=%v %q, want a refusal", at.name, ok, msg)
		}
	}
	// Nothing of mallory's reached priv's or the DM's history.
	for _, ch := range []string{"priv", "dm-ab", "arch"} {
		evs, closed := w.a.req("hist-"+ch, nostr.Filter{Kinds: []int{0, 1, 5, 9, 30450}, Tags: nostr.TagMap{"h": {ch}}})
		if closed != "" {
			t.Fatalf("alice reading %s: %s", ch, closed)
		}
		for _, ev := range evs {
			if ev.PubKey == w.mallory.pk {
				t.Errorf("%s holds mallory's kind %d %q", ch, ev.Kind, ev.Content)
			}
		}
	}
	// The rule still lets members write where they belong.
	w.a.must(w.alice.sign(t, 1, "note", nostr.Tag{"h", "priv"}))
	w.b.must(w.bob.sign(t, 20002, "", nostr.Tag{"h", "dm-ab"}))
	w.m.must(w.mallory.sign(t, 20002, "", nostr.Tag{"h", "pub"}))
	h.verifyReplay(t)
}

// Issue 8 item 3: a p-gated kind (24200) goes to exactly one p, one the
// sender may address; a second p is refused, so no stranger receives it.
// Issue 11 item 6: besides agent and owner, the owner's paired devices may
// exchange frames with the owner's agents while their attestation stands;
// no other key, sibling agent, other member's device, revoked or expired
// device may.
func TestHardeningObserverFrameOneRecipient(t *testing.T) {
	h := startHubProc(t)
	w := startWriteTeam(t, h)
	agent, tag, ag := namedAgentOf(t, h, w.alice, "bot")
	// mallory attests a throwaway agent of her own to reach alice.
	throwaway, _, mt := agentOf(t, h, w.mallory)
	// alice's paired devices: a live one, one she will revoke, one whose
	// attestation expires during the test; bob's device; alice's second agent.
	phone, pc := deviceOf(t, h, w.alice, time.Hour)
	lost, lc := deviceOf(t, h, w.alice, time.Hour)
	brief, bc := deviceOf(t, h, w.alice, 3*time.Second)
	briefUntil := time.Now().Add(3 * time.Second)
	bobs, bbc := deviceOf(t, h, w.bob, time.Hour)
	sibling, _, sc := namedAgentOf(t, h, w.alice, "sibling")

	// Each key watches on a connection of its own that sends nothing, so no
	// frame is read (and dropped) while waiting for an OK.
	watch := func(who key, extra ...nostr.Tag) *raw {
		t.Helper()
		r := h.as(t, who, extra...)
		if _, closed := r.req("frames", nostr.Filter{Kinds: []int{24200}, Tags: nostr.TagMap{"p": {who.pk}}}, nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"pub"}}}); closed != "" {
			t.Fatal(closed)
		}
		return r
	}
	watchers := map[string]*raw{"bob": watch(w.bob), "alice": watch(w.alice), "agent": watch(agent, tag),
		"phone": watch(phone, attest(t, w.alice, phone, time.Hour)), "bob's device": watch(bobs, attest(t, w.bob, bobs, time.Hour))}
	ag.refused(agent.sign(t, 24200, "frame", nostr.Tag{"p", w.alice.pk}, nostr.Tag{"p", w.bob.pk}), "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey")
	ag.refused(agent.sign(t, 24200, "frame", nostr.Tag{"p", w.bob.pk}, nostr.Tag{"p", w.alice.pk}), "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey")
	ag.refused(agent.sign(t, 24200, "frame", nostr.Tag{"p", w.alice.pk}, nostr.Tag{"p", w.alice.pk}), "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey")
	ag.refused(agent.sign(t, 24200, "frame"), "invalid: kind 24200 needs a \"p\" tag with a value")
	mt.refused(throwaway.sign(t, 24200, "frame", nostr.Tag{"p", w.mallory.pk}, nostr.Tag{"p", w.alice.pk}), "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey")
	mt.refused(throwaway.sign(t, 24200, "frame", nostr.Tag{"p", w.alice.pk}), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	mt.refused(throwaway.sign(t, 24200, "frame", nostr.Tag{"p", agent.pk}), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	ag.refused(agent.sign(t, 24200, "frame", nostr.Tag{"p", phone.pk}, nostr.Tag{"p", bobs.pk}), "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey")
	ag.refused(agent.sign(t, 24200, "frame", nostr.Tag{"p", bobs.pk}), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	bbc.refused(bobs.sign(t, 24200, "frame", nostr.Tag{"p", agent.pk}), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	sc.refused(sibling.sign(t, 24200, "frame", nostr.Tag{"p", agent.pk}), "restricted: observer frames do not go between two agents; a key attested by the owner reaches the owner's agents only as a paired device (enrolled with hive pair: its attestation carries the device clause created_at>0)")
	ag.refused(agent.sign(t, 24200, "frame", nostr.Tag{"p", sibling.pk}), "restricted: observer frames do not go between two agents; a key attested by the owner reaches the owner's agents only as a paired device (enrolled with hive pair: its attestation carries the device clause created_at>0)")
	w.b.refused(w.bob.sign(t, 24200, "frame", nostr.Tag{"p", agent.pk}), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	pc.refused(phone.sign(t, 24200, "frame", nostr.Tag{"p", bobs.pk}), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	// Revoked: the device is cut off and cannot come back; the agent's frames
	// to it are refused.
	lc.must(lost.sign(t, 24200, "before", nostr.Tag{"p", agent.pk}))
	aliceKeys, _ := identity.KeysFromSecretHex(w.alice.sk)
	rev, err := identity.NewRevocation(aliceKeys, lost.pk, "lost", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	w.a.must(rev)
	if ok, msg := dialRaw(t, h.URL).authWith(lost, h.URL, 0, attest(t, w.alice, lost, time.Hour)); ok || !hasPrefix(msg, "restricted:") {
		t.Fatalf("revoked device AUTH: ok=%v %q", ok, msg)
	}
	ag.refused(agent.sign(t, 24200, "frame", nostr.Tag{"p", lost.pk}), "restricted: the owner's device … is no longer attested (its owner revoked it)")
	// Expired: its open connection is closed at expiry (issue 23 item 3),
	// and frames to it are refused.
	select {
	case <-closedAt(bc):
	case <-time.After(time.Until(briefUntil) + 3*time.Second):
		t.Fatal("the expired device's connection is still open 3 s after its attestation ended")
	}
	ag.refused(agent.sign(t, 24200, "frame", nostr.Tag{"p", brief.pk}), "restricted: the owner's device … is no longer attested (attestation conditions not met: attestation expired: created_at … is not before … (clause created_at<…))")

	ag.must(agent.sign(t, 24200, "legit", nostr.Tag{"p", w.alice.pk}))
	ag.must(agent.sign(t, 24200, "to-phone", nostr.Tag{"p", phone.pk}))
	pc.must(phone.sign(t, 24200, "control", nostr.Tag{"p", agent.pk}))
	// A marker after the attacks: everything fanned out before it arrived first.
	marker := w.m.must(w.mallory.sign(t, 9, "marker", nostr.Tag{"h", "pub"}))
	want := map[string]string{"alice": "legit", "agent": "before control", "phone": "to-phone"}
	for who, r := range watchers {
		var got []string
		for {
			m := r.expect("EVENT")
			ev := &nostr.Event{}
			json.Unmarshal(m[2], ev)
			if ev.ID == marker.ID {
				break
			}
			if ev.Kind != 24200 {
				continue
			}
			got = append(got, ev.Content)
		}
		if strings.Join(got, " ") != want[who] {
			t.Errorf("%s received %q, want %q", who, got, want[who])
		}
	}
	h.verifyReplay(t)
}

// deviceOf enrols a fresh key for owner as a paired device (the pairing
// flow's device attestation, and the profile hive join publishes) and
// authenticates it.
func deviceOf(t *testing.T, h *procHub, owner key, d time.Duration) (key, *raw) {
	t.Helper()
	dev := newKey(t)
	tag := deviceTag(t, owner, dev, d)
	r := h.as(t, dev, tag)
	r.must(dev.sign(t, 0, `{"name":"device"}`, tag, nostr.Tag{"device"}))
	return dev, r
}

// Issue 8 item 4: deletion by `a` parses the coordinate strictly, and a
// revocation (a state kind) stays undeletable however it is spelled, across a
// restart.
func TestHardeningRevocationUndeletable(t *testing.T) {
	h := startHubProc(t)
	w := startWriteTeam(t, h)
	agent, tag, _ := agentOf(t, h, w.alice)
	aliceKeys, _ := identity.KeysFromSecretHex(w.alice.sk)
	rev, err := identity.NewRevocation(aliceKeys, agent.pk, "rotated", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	w.a.must(rev)
	coord := fmt.Sprintf("%s:%s", w.alice.pk, agent.pk)
	badKind := func(a string) string {
		return fmt.Sprintf("invalid: address %q: the kind must be plain decimal digits without sign or leading zero", a)
	}
	w.a.refused(w.alice.sign(t, 5, "", nostr.Tag{"a", "30450:" + coord}), "invalid: kind 30450 is hub state and cannot be deleted; undo it with its own kind instead")
	for _, k := range []string{"+30450", "030450", "0030450", "-30450", " 30450", "30450 ", "3e4", "0x7632"} {
		w.a.refused(w.alice.sign(t, 5, "", nostr.Tag{"a", k + ":" + coord}), badKind(k+":"+coord))
	}
	for a, want := range map[string]string{
		"30450":               `invalid: address "30450" is not <kind>:<pubkey>:<d>`,
		"30450:" + w.alice.pk: fmt.Sprintf(`invalid: address "30450:%s" is not <kind>:<pubkey>:<d> (a replaceable kind ends with a colon)`, w.alice.pk),
		":" + coord:           badKind(":" + coord),
		"x:y:z":               badKind("x:y:z"),
	} {
		w.a.refused(w.alice.sign(t, 5, "", nostr.Tag{"a", a}), want)
	}
	h.verifyReplay(t)
	h.restart(t)
	c := dialRaw(t, h.URL)
	if ok, msg := c.authWith(agent, h.URL, 0, tag); ok || !hasPrefix(msg, "restricted:") {
		t.Fatalf("revoked agent AUTH after restart: ok=%v %q", ok, msg)
	}
	// Addressable events that are not hub state can still be deleted by address.
	a := h.as(t, w.alice)
	note := a.must(w.alice.sign(t, 30023, "draft", nostr.Tag{"d", "n1"}))
	a.must(w.alice.sign(t, 5, "", nostr.Tag{"a", fmt.Sprintf("30023:%s:n1", w.alice.pk)}))
	if evs, _ := a.req("gone", nostr.Filter{IDs: []string{note.ID}}); len(evs) != 0 {
		t.Fatalf("deleted article still served")
	}
	h.verifyReplay(t)
}

// Issue 8 item 5: state kinds refuse a NIP-40 expiration tag, so no effect
// outlives the event behind it.
func TestHardeningStateKindsRefuseExpiration(t *testing.T) {
	h := startHubProc(t)
	w := startWriteTeam(t, h)
	expAt := time.Now().Add(3 * time.Second).Unix()
	exp := nostr.Tag{"expiration", fmt.Sprint(expAt)}
	msg := w.a.must(w.alice.sign(t, 9, "hello", nostr.Tag{"h", "pub"}))
	agent, tag, ag := agentOf(t, h, w.alice)
	aliceKeys, _ := identity.KeysFromSecretHex(w.alice.sk)
	rev, _ := identity.NewRevocation(aliceKeys, newKey(t).pk, "", time.Now().Unix())
	rev.Tags = append(rev.Tags, exp)
	rev.Sign(w.alice.sk)
	adm := h.as(t, h.admin)
	for name, c := range map[string]struct {
		r  *raw
		ev *nostr.Event
	}{
		"9007 create":   {w.a, w.alice.sign(t, 9007, "", nostr.Tag{"h", "vanishing"}, nostr.Tag{"name", "v"}, nostr.Tag{"visibility", "private"}, exp)},
		"9000 add":      {w.a, w.alice.sign(t, 9000, "", nostr.Tag{"h", "priv"}, nostr.Tag{"p", w.bob.pk}, exp)},
		"9002 edit":     {w.a, w.alice.sign(t, 9002, "", nostr.Tag{"h", "pub"}, nostr.Tag{"visibility", "private"}, exp)},
		"9021 join":     {w.m, w.mallory.sign(t, 9021, "", nostr.Tag{"h", "pub"}, exp)},
		"8000 member":   {adm, h.admin.sign(t, 8000, "", nostr.Tag{"p", newKey(t).pk}, exp)},
		"8001 remove":   {adm, h.admin.sign(t, 8001, "", nostr.Tag{"p", w.mallory.pk}, exp)},
		"0 profile":     {ag, agent.sign(t, 0, `{"name":"bot"}`, tag, exp)},
		"7 reaction":    {w.b, w.bob.sign(t, 7, "+", nostr.Tag{"e", msg.ID}, exp)},
		"5 deletion":    {w.a, w.alice.sign(t, 5, "", nostr.Tag{"e", msg.ID}, exp)},
		"30450 revoked": {w.a, rev},
	} {
		want := fmt.Sprintf("invalid: kind %d changes hub state and cannot carry a NIP-40 expiration", c.ev.Kind)
		if ok, m := c.r.publish(c.ev); ok || !reasonIs(t, m, want) {
			t.Errorf("%s with expiration: ok=%v %q, want %q", name, ok, m, want)
		}
	}
	// Ordinary content may still expire.
	w.a.must(w.alice.sign(t, 9, "short-lived", nostr.Tag{"h", "pub"}, exp))
	for time.Now().Unix() <= expAt { // the expiration's second has passed
		time.Sleep(50 * time.Millisecond)
	}
	h.restart(t)
	m := h.as(t, w.mallory)
	m.refused(w.mallory.sign(t, 9007, "", nostr.Tag{"h", "priv"}, nostr.Tag{"name", "mine"}), "duplicate: channel priv already exists")
	if _, closed := m.req("p", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"priv"}}}); !hasPrefix(closed, "restricted:") {
		t.Fatalf("non-member reading priv after restart: %q", closed)
	}
	h.verifyReplay(t)
}

// Issue 8 item 6: an agent deleting its own profile by address drops its
// owner link from the projection too, so the log and the projection agree.
func TestHardeningProfileDeletionByAddress(t *testing.T) {
	h := startHubProc(t)
	w := startWriteTeam(t, h)
	agent, tag, ag := namedAgentOf(t, h, w.alice, "bot")
	first := ag.must(agent.sign(t, 9, "one", nostr.Tag{"h", "pub"}))
	w.a.must(w.alice.sign(t, 40003, "one (edited by owner)", nostr.Tag{"h", "pub"}, nostr.Tag{"e", first.ID}))
	ag.must(agent.sign(t, 5, "", nostr.Tag{"a", "0:" + agent.pk + ":"}))
	if evs, _ := w.a.req("prof", nostr.Filter{Kinds: []int{0}, Authors: []string{agent.pk}}); len(evs) != 0 {
		t.Fatalf("profile still served after its deletion")
	}
	// Without a profile the hub no longer knows alice owns the agent.
	second := ag.must(agent.sign(t, 9, "two", nostr.Tag{"h", "pub"}))
	w.a.refused(w.alice.sign(t, 40003, "two (edited)", nostr.Tag{"h", "pub"}, nostr.Tag{"e", second.ID}), "restricted: only the author or the author's owner may edit this message")
	h.verifyReplay(t)
	// A deletion older than the profile leaves both the profile and the link.
	ag.must(agent.sign(t, 0, `{"name":"bot again"}`, tag))
	old := &nostr.Event{Kind: 5, CreatedAt: nostr.Timestamp(time.Now().Add(-30 * time.Second).Unix()), Tags: nostr.Tags{{"a", "0:" + agent.pk + ":"}}}
	old.Sign(agent.sk)
	ag.must(old)
	w.a.must(w.alice.sign(t, 40003, "two (edited by owner)", nostr.Tag{"h", "pub"}, nostr.Tag{"e", second.ID}))
	h.verifyReplay(t)
	h.restart(t)
	h.verifyReplay(t)
}

// Issue 9 item 4: a reply may name a parent that is still in the same commit
// batch, even queued after it; a parent the batch refuses still refuses the
// reply. A long commit window puts everything sent at once in one batch.
func TestReplyToParentInSameBatch(t *testing.T) {
	admin := newKey(t)
	data := filepath.Join(t.TempDir(), "hub")
	h := &procHub{hubProc: startProc(t, data, freeAddr(t), "--admin", admin.pk, "--commit-window", "300ms"), data: data, admin: admin}
	w := startWriteTeam(t, h)
	root := w.alice.sign(t, 9, "root", nostr.Tag{"h", "pub"})
	r1 := w.alice.sign(t, 9, "reply", nostr.Tag{"h", "pub"}, nostr.Tag{"e", root.ID, "", "root"})
	r2 := w.alice.sign(t, 9, "reply to reply", nostr.Tag{"h", "pub"}, nostr.Tag{"e", root.ID, "", "root"}, nostr.Tag{"e", r1.ID, "", "reply"})
	like := w.bob.sign(t, 7, "+", nostr.Tag{"e", r2.ID})
	// bob cannot write in priv, so his parent is refused and so is the reply.
	badRoot := w.bob.sign(t, 9, "no", nostr.Tag{"h", "priv"})
	badReply := w.alice.sign(t, 9, "orphan", nostr.Tag{"h", "priv"}, nostr.Tag{"e", badRoot.ID, "", "root"})
	// Children first, parents last, all pipelined without waiting for OKs.
	w.b.send([]any{"EVENT", like})
	for _, ev := range []*nostr.Event{r2, r1, badReply, root} {
		w.a.send([]any{"EVENT", ev})
	}
	w.b.send([]any{"EVENT", badRoot})
	oks := map[string]string{}
	for len(oks) < 4 {
		m := w.a.expect("OK")
		oks[str(m[1])] = string(m[2]) + " " + str(m[3])
	}
	for len(oks) < 6 {
		m := w.b.expect("OK")
		oks[str(m[1])] = string(m[2]) + " " + str(m[3])
	}
	for name, ev := range map[string]*nostr.Event{"root": root, "reply": r1, "reply to reply": r2, "reaction": like} {
		if oks[ev.ID] != "true " {
			t.Errorf("%s: %q, want accepted", name, oks[ev.ID])
		}
	}
	if !strings.HasPrefix(oks[badRoot.ID], "false restricted:") || !strings.HasPrefix(oks[badReply.ID], "false invalid:") {
		t.Errorf("refused parent %q, its reply %q", oks[badRoot.ID], oks[badReply.ID])
	}
	evs, _ := w.a.req("thread", nostr.Filter{Kinds: []int{7, 9}, Tags: nostr.TagMap{"h": {"pub"}}}, nostr.Filter{Kinds: []int{7}, Tags: nostr.TagMap{"e": {r2.ID}}})
	if len(evs) != 4 {
		t.Errorf("stored thread has %d events, want 4", len(evs))
	}
	stored := map[string]bool{}
	for _, ev := range evs {
		stored[ev.ID] = true
	}
	for _, ev := range []*nostr.Event{root, r1, r2, like} {
		if !stored[ev.ID] {
			t.Errorf("%q is not stored", ev.Content)
		}
	}
	h.verifyReplay(t)
}
