package identity

import (
	"errors"
	"testing"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/nbd-wtf/go-nostr"
)

func TestRevocationRoundTrip(t *testing.T) {
	owner, _ := KeysFromSecretHex(vecOwnerSecret)
	ev, err := NewRevocation(owner, vecAgentPub, "key leaked", 1700000000)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind != KindRevocation || ev.Tags.GetD() != vecAgentPub || ev.Content != "key leaked" {
		t.Fatalf("event %v", ev)
	}
	if p := ev.Tags.Find("p"); len(p) < 2 || p[1] != vecAgentPub {
		t.Fatalf("p tag %v", p)
	}
	o, a, at, err := ParseRevocation(ev)
	if err != nil || o != vecOwnerPub || a != vecAgentPub || at != 1700000000 {
		t.Fatalf("ParseRevocation = %s %s %d %v", o, a, at, err)
	}
	// No reason, no p tag is fine.
	ev2 := &nostr.Event{Kind: KindRevocation, CreatedAt: 5, Tags: nostr.Tags{{"d", vecAgentPub}}}
	if err := ev2.Sign(vecOwnerSecret); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := ParseRevocation(ev2); err != nil {
		t.Fatal(err)
	}
}

func TestRevocationRejects(t *testing.T) {
	owner, _ := KeysFromSecretHex(vecOwnerSecret)
	if _, err := NewRevocation(owner, vecOwnerPub, "", 1); !errors.Is(err, ErrSelfAttestation) {
		t.Errorf("self revocation: %v", err)
	}
	if _, err := NewRevocation(owner, "AB", "", 1); !errors.Is(err, ErrBadAgentKey) {
		t.Errorf("bad agent: %v", err)
	}
	if _, err := NewRevocation(Keys{}, vecAgentPub, "", 1); !errors.Is(err, ErrBadRevocation) {
		t.Errorf("no owner key: %v", err)
	}
	third, _ := KeysFromSecretHex("0000000000000000000000000000000000000000000000000000000000000003")
	signed := func(kind int, tags nostr.Tags) *nostr.Event {
		ev := &nostr.Event{Kind: kind, CreatedAt: 10, Tags: tags}
		if err := ev.Sign(vecOwnerSecret); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	cases := map[string]*nostr.Event{
		"wrong kind": signed(1, nostr.Tags{{"d", vecAgentPub}}),
		"no d":       signed(KindRevocation, nostr.Tags{{"p", vecAgentPub}}),
		"two d":      signed(KindRevocation, nostr.Tags{{"d", vecAgentPub}, {"d", third.PublicHex}}),
		"empty d":    signed(KindRevocation, nostr.Tags{{"d"}}),
		"upper d":    signed(KindRevocation, nostr.Tags{{"d", "C6047F9441ED7D6D3045406E95C07CD85C778E4B8CEF3CA7ABAC09B95C709EE5"}}),
		"npub d":     signed(KindRevocation, nostr.Tags{{"d", "npub1abc"}}),
		"p mismatch": signed(KindRevocation, nostr.Tags{{"d", vecAgentPub}, {"p", third.PublicHex}}),
		"self":       signed(KindRevocation, nostr.Tags{{"d", vecOwnerPub}}),
		"nil":        nil,
		"tampered":   func() *nostr.Event { ev, _ := NewRevocation(owner, vecAgentPub, "", 10); ev.CreatedAt = 11; return ev }(),
		"forged sig": func() *nostr.Event { ev, _ := NewRevocation(owner, vecAgentPub, "", 10); ev.Sig = vecSig; return ev }(),
		"foreign owner": func() *nostr.Event {
			ev, _ := NewRevocation(owner, vecAgentPub, "", 10)
			ev.PubKey = third.PublicHex
			return ev
		}(),
	}
	for name, ev := range cases {
		if _, _, _, err := ParseRevocation(ev); !errors.Is(err, ErrBadRevocation) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRevokedBy(t *testing.T) {
	none := Conditions{}
	exp := Conditions{}.WithExpiry(5000)
	nb := func(t int64) Conditions { return Conditions{}.WithNotBefore(t).WithExpiry(9000) }
	cases := []struct {
		name      string
		conds     Conditions
		revokedAt int64
		dead      bool
	}{
		{"no bounds", none, 0, true},
		{"expiry only", exp, 100, true},
		{"issued before revocation", nb(1000), 2000, true},
		{"bound one second before revocation", nb(1999), 2000, true},
		{"bound at revocation", nb(2000), 2000, false}, // allows only created_at > 2000
		{"re-attested after revocation", nb(2001), 2000, false},
		{"re-attested long after", nb(5000), 2000, false},
		{"revocation at 0, bound 0", nb(0), 0, false},
	}
	for _, tc := range cases {
		if got := RevokedBy(tc.conds, tc.revokedAt); got != tc.dead {
			t.Errorf("%s: RevokedBy = %v, want %v", tc.name, got, tc.dead)
		}
	}
}

// patchNcryptsecLogN rewrites the log_n byte of an ncryptsec string.
func patchNcryptsecLogN(t *testing.T, s string, logN byte) string {
	t.Helper()
	_, bits5, err := bech32.DecodeNoLimit(s)
	if err != nil {
		t.Fatal(err)
	}
	data, err := bech32.ConvertBits(bits5, 5, 8, false)
	if err != nil {
		t.Fatal(err)
	}
	data[1] = logN
	bits5, err = bech32.ConvertBits(data, 8, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	out, err := bech32.Encode("ncryptsec", bits5)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
