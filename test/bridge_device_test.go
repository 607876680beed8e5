package test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/agentbridge"
	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// pairedDevice is a key its owner enrolled as a paired device, with the
// profile hive join publishes (what hive pair / hive join leave behind).
type pairedDevice struct {
	key
	tag nostr.Tag
	r   *raw
}

func (e *bridgeEnv) pairDevice(t testing.TB, owner key) pairedDevice {
	t.Helper()
	d := pairedDevice{key: newKey(t)}
	d.tag = deviceTag(t, owner, d.key, time.Hour)
	d.r = e.h.as(t, d.key, d.tag)
	d.r.must(d.sign(t, 0, `{"name":"phone","about":"hive device"}`, d.tag, nostr.Tag{"device"}))
	return d
}

// Issue 11 item 6: a paired device of the owner watches the agent (a watch
// control frame) and answers its permission request; a revoked device, bob
// and bob's device are refused by the hub, and the revoked device's control
// has no effect (the request times out).
func TestBridgeDeviceControl(t *testing.T) {
	e, b := startScripted(t, `permissions = "ask"`, `permission_timeout = "4s"`)
	phone := e.pairDevice(t, e.alice)
	lost := e.pairDevice(t, e.alice)
	bobs := e.pairDevice(t, e.bob)
	phoneCK, _ := nip44.GenerateConversationKey(e.agent.pk, phone.sk)
	fw := e.watchFramesAs(t, phone.key, phoneCK, phone.tag)
	phone.r.must(e.controlFrom(t, phone.key, observer.Control{V: 1, Type: observer.CtlWatch}))
	lost.r.must(e.controlFrom(t, lost.key, observer.Control{V: 1, Type: observer.CtlWatch}))
	for _, d := range []pairedDevice{phone, lost} { // the bridge checked the device on the hub
		e.waitLog(t, b, " device="+d.pk)
	}

	// The device sees the request in its own frames and approves it.
	m1 := e.mention(t, e.a, e.alice, "room", "from the phone [[permission]]")
	session, id, allow := permissionRequest(t, fw)
	approve := observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: allow}
	e.b.refused(e.controlFrom(t, e.bob, approve), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	bobs.r.refused(e.controlFrom(t, bobs.key, approve), "restricted: observer frames go only between an agent and its owner, or the owner's paired devices")
	phone.r.must(e.controlFrom(t, phone.key, approve))
	if r := e.waitReply(t, "room", m1.ID, 20*time.Second, b); !strings.Contains(r.Content, "permission: allow") {
		t.Fatalf("permission approved by the device: reply %q", r.Content)
	}

	// Revoked: cut off by the hub; its approval never reaches the bridge and
	// the request times out.
	aliceKeys, _ := identity.KeysFromSecretHex(e.alice.sk)
	rev, err := identity.NewRevocation(aliceKeys, lost.pk, "lost", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	e.a.must(rev)
	m2 := e.mention(t, e.a, e.alice, "room", "after the revocation [[permission]]")
	session, id, allow = permissionRequest(t, fw)
	again := dialRaw(t, e.h.URL)
	if ok, msg := again.authWith(lost.key, e.h.URL, 0, lost.tag); ok || !strings.HasPrefix(msg, "restricted:") {
		t.Fatalf("revoked device AUTH: ok=%v %q", ok, msg)
	}
	again.refused(e.controlFrom(t, lost.key, observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: allow}), "restricted: AUTH was refused: ")
	if r := e.waitReply(t, "room", m2.ID, 20*time.Second, b); !strings.Contains(r.Content, "permission: reject") {
		t.Fatalf("after the revoked device's approval: reply %q, want the timeout's reject", r.Content)
	}
	if logs := b.logs(); !strings.Contains(logs, "paired device watches the agent") {
		t.Fatalf("the bridge did not take the device's watch:\n%s", logs)
	}
}

// The bridge's own check of a control frame's author, against the real hub:
// only a live paired device of the owner passes.
func TestBridgeLiveDeviceCheck(t *testing.T) {
	e := newBridgeEnv(t)
	phone := e.pairDevice(t, e.alice)
	lost := e.pairDevice(t, e.alice)
	bobs := e.pairDevice(t, e.bob)
	sibling := newKey(t)
	stag := attest(t, e.alice, sibling, time.Hour)
	e.h.as(t, sibling, stag).must(sibling.sign(t, 0, `{"name":"sibling","bot":true}`, stag, nostr.Tag{"bot"}))
	poser := newKey(t) // an agent whose profile claims to be a device
	ptag := attest(t, e.alice, poser, time.Hour)
	e.h.as(t, poser, ptag).must(poser.sign(t, 0, `{"name":"phone"}`, ptag, nostr.Tag{"device"}))
	aliceKeys, _ := identity.KeysFromSecretHex(e.alice.sk)
	rev, _ := identity.NewRevocation(aliceKeys, lost.pk, "lost", time.Now().Unix())
	e.a.must(rev)

	agentKeys, _ := identity.KeysFromSecretHex(e.agent.sk)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tag := attest(t, e.alice, e.agent, time.Hour)
	h, err := agentbridge.DialClient(ctx, agentbridge.Target{URLs: []string{e.h.URL}}, agentKeys, tag)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, c := range []struct {
		name, pk, want string
	}{
		{"live device", phone.pk, ""},
		{"revoked device", lost.pk, "revoked"},
		{"bob's device", bobs.pk, "another owner"},
		{"sibling agent", sibling.pk, "an agent: its attestation has no device clause created_at>0"},
		{"agent posing as a device", poser.pk, "an agent: its attestation has no device clause created_at>0"},
		{"bob", e.bob.pk, "no profile"},
	} {
		err := agentbridge.LiveDevice(ctx, h, e.alice.pk, c.pk, time.Now())
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// An expired attestation does not hold now.
	if err := agentbridge.LiveDevice(ctx, h, e.alice.pk, phone.pk, time.Now().Add(2*time.Hour)); err == nil {
		t.Error("a device whose attestation has expired passed")
	}
}

// BenchmarkLiveDevice: the bridge's check of a device's control frame (two
// REQs to the real hub: the profile and the owner's revocations), the extra
// latency a device's control frame pays over the owner's.
func BenchmarkLiveDevice(b *testing.B) {
	e := newBridgeEnv(b)
	phone := e.pairDevice(b, e.alice)
	agentKeys, _ := identity.KeysFromSecretHex(e.agent.sk)
	ctx := context.Background()
	h, err := agentbridge.DialClient(ctx, agentbridge.Target{URLs: []string{e.h.URL}}, agentKeys, attest(b, e.alice, e.agent, time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := agentbridge.LiveDevice(ctx, h, e.alice.pk, phone.pk, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// A paired device acts as its owner for the answer gate too: with the
// default answer = "owner", the owner's phone mentions the agent and gets
// the reply (and an answered receipt), while bob's paired device is not
// admitted as bob would not be (a not-answered receipt naming the gate).
// Before the fix the bridge ignored the owner's device: "the answer gate
// does not admit its author".
func TestBridgeAnswersOwnersDevice(t *testing.T) {
	e, b := startScripted(t)
	phone := e.pairDevice(t, e.alice)
	bobs := e.pairDevice(t, e.bob)

	m := e.mention(t, phone.r, phone.key, "room", "asked from alice's phone")
	if r := e.waitReply(t, "room", m.ID, 30*time.Second, b); r.Content == "" {
		t.Fatalf("empty reply to the owner's device")
	}
	if rs := e.waitReceipt(t, e.agent.pk, m.ID, b); !strings.HasPrefix(rs[len(rs)-1], "answered") {
		t.Fatalf("the owner's device's mention: receipts %q, want answered last", rs)
	}
	fromBobs := e.mention(t, bobs.r, bobs.key, "room", "asked from bob's device")
	if rs := e.waitReceipt(t, e.agent.pk, fromBobs.ID, b); len(rs) != 1 || !strings.HasPrefix(rs[0], `not-answered: not answered: this agent answers only its owner (answer = "owner"`) {
		t.Fatalf("bob's device's mention: receipts %q, want one not-answered naming the gate", rs)
	}
	if n := e.repliesTo(t, "room", fromBobs.ID); n != 0 {
		t.Fatalf("%d replies to bob's device under answer = owner", n)
	}
}
