package hub

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// TestObserverFrameDevices: a paired device of the agent's owner may send
// the agent control frames and receive its observer frames, while its
// attestation stands; sibling agents, other owners' devices and revoked or
// expired devices may not. The view and the write transaction agree.
func TestObserverFrameDevices(t *testing.T) {
	h := worldHub(t)
	now := time.Now().Unix()
	keys := map[string]identity.Keys{}
	for _, n := range []string{"phone", "oldphone", "expphone", "bobphone", "agent2", "unmarked"} {
		k, err := identity.GenerateKeys()
		if err != nil {
			t.Fatal(err)
		}
		keys[n] = k
	}
	owner := map[string]string{"phone": "alice", "oldphone": "alice", "expphone": "alice", "bobphone": "bob", "agent2": "alice", "unmarked": "alice"}
	for n, k := range keys {
		conds := identity.Conditions{}.WithNotBefore(now - 3600).WithExpiry(now + 3600)
		if n == "expphone" {
			conds = identity.Conditions{}.WithNotBefore(now - 3600).WithExpiry(now - 60)
		}
		attest := identity.Attest
		if strings.HasSuffix(n, "phone") {
			attest = identity.AttestDevice
		}
		tag, err := attest(world.keys[owner[n]].SecretHex, k.PublicHex, conds)
		if err != nil {
			t.Fatal(err)
		}
		tags := nostr.Tags{tag}
		if n != "unmarked" {
			tags = append(tags, nostr.Tag{"device"}) // a label anyone may add: agent2 stays an agent
		}
		ev := &nostr.Event{Kind: 0, CreatedAt: nostr.Timestamp(now - 120), Content: `{"name":"` + n + `"}`, Tags: tags}
		if n == "expphone" {
			ev.CreatedAt = nostr.Timestamp(now - 600) // published while its attestation stood
		}
		ev.Sign(k.SecretHex)
		if got := publish(h, ev); got != "" {
			t.Fatalf("profile of %s: %s", n, got)
		}
	}
	rev, err := identity.NewRevocation(world.keys["alice"], keys["oldphone"].PublicHex, "lost", now)
	if err != nil {
		t.Fatal(err)
	}
	if got := publish(h, rev); got != "" {
		t.Fatal(got)
	}
	checkViewMatchesTables(t, h)

	pk := func(n string) string {
		if k, ok := keys[n]; ok {
			return k.PublicHex
		}
		return world.keys[n].PublicHex
	}
	cases := []struct {
		from, to string
		want     string
	}{
		{"phone", "agent", ""}, // a device's control frame to its owner's agent
		{"agent", "phone", ""}, // the agent's observer frame to its owner's device
		{"alice", "phone", ""}, // the owner to its device
		{"phone", "alice", ""}, // the device to its owner
		{"oldphone", "agent", "restricted: this device's attestation on its profile does not stand (its owner revoked it); pair it again"}, // revoked
		{"agent", "oldphone", "restricted: the owner's device … is no longer attested (its owner revoked it)"},
		{"expphone", "agent", "restricted: this device's attestation on its profile does not stand (attestation conditions not met: attestation expired: created_at … is not before … (clause created_at<…)); pair it again"}, // expired
		{"agent", "expphone", "restricted: the owner's device … is no longer attested (attestation conditions not met: attestation expired: created_at … is not before … (clause created_at<…))"},
		{"bobphone", "agent", "restricted: observer frames go only between an agent and its owner, or the owner's paired devices"}, // another member's device
		{"agent", "bobphone", "restricted: observer frames go only between an agent and its owner, or the owner's paired devices"},
		{"agent2", "agent", "restricted: observer frames do not go between two agents; a key attested by the owner reaches the owner's agents only as a paired device (enrolled with hive pair: its attestation carries the device clause created_at>0)"}, // a sibling agent
		{"agent", "agent2", "restricted: observer frames do not go between two agents; a key attested by the owner reaches the owner's agents only as a paired device (enrolled with hive pair: its attestation carries the device clause created_at>0)"},
		{"unmarked", "agent", "restricted: observer frames do not go between two agents; a key attested by the owner reaches the owner's agents only as a paired device (enrolled with hive pair: its attestation carries the device clause created_at>0)"}, // attested, but its profile is not a device's
		{"phone", "oldphone", "restricted: observer frames do not go from one device to another"},                                                                                                                                                           // device to device
		{"bob", "phone", "restricted: observer frames go only between an agent and its owner, or the owner's paired devices"},
		{"mallory", "agent", "restricted: observer frames go only between an agent and its owner, or the owner's paired devices"},
	}
	v := h.snapshotView()
	for _, c := range cases {
		ev := &nostr.Event{Kind: 24200, CreatedAt: nostr.Timestamp(now), Content: "x", Tags: nostr.Tags{{"p", pk(c.to)}}}
		sk := world.keys[c.from].SecretHex
		if k, ok := keys[c.from]; ok {
			sk = k.SecretHex
		}
		ev.Sign(sk)
		from := sender{pubkey: ev.PubKey}
		if o, ok := owner[c.from]; ok {
			from.owner = world.keys[o].PublicHex
		} else if c.from == "agent" {
			from.owner = world.keys["alice"].PublicHex
		}
		got := ""
		if err := checkEvent(v, ev, from); err != nil {
			got = err.Error()
		}
		if !refusedAs(t, got, c.want) {
			t.Errorf("%s -> %s: got %q, want %s", c.from, c.to, got, orOK(c.want))
		}
	}
	// The write transaction reads the same facts from the tables (the view
	// keeps the conditions of devices only).
	err = h.Store.Exec(context.Background(), func(sqlTx store.WriteTx) error {
		tx := h.proj.tx(sqlTx, nil)
		for _, n := range []string{"phone", "oldphone", "expphone", "bobphone", "agent2", "agent", "alice"} {
			a, err := tx.attested(pk(n))
			if err != nil {
				return err
			}
			b, _ := v.attested(pk(n))
			if a.owner != b.owner || a.device != b.device || a.revoked != b.revoked || a.revokedAt != b.revokedAt || (a.device && !a.conds.Equal(b.conds)) {
				t.Errorf("%s: tx says %+v, view says %+v", n, a, b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
