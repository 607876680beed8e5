package identity

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/nbd-wtf/go-nostr"
)

// NIP-OA specification test vector.
const (
	vecOwnerSecret = "0000000000000000000000000000000000000000000000000000000000000001"
	vecOwnerPub    = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
	vecAgentSecret = "0000000000000000000000000000000000000000000000000000000000000002"
	vecAgentPub    = "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
	vecConditions  = "kind=1&created_at<1713957000"
	vecHash        = "08cdecd55af4c28d3801fd69615dcf5cc04fab3bc134b38a840bf157197069a6"
	vecSig         = "8b7df2575caf0a108374f8471722b233c53f9ff827a8b0f91861966c3b9dd5cb2e189eae9f49d72187674c2f5bd244145e10ff86c9f257ffe65a1ee5f108b369"
	vecTagBytesHex = "5b2261757468222c2237396265363637656639646362626163353561303632393563653837306230373032396266636462326463653238643935396632383135623136663831373938222c226b696e643d3126637265617465645f61743c31373133393537303030222c223862376466323537356361663061313038333734663834373137323262323333633533663966663832376138623066393138363139363663336239646435636232653138396561653966343964373231383736373463326635626432343431343565313066663836633966323537666665363561316565356631303862333639225d"
	vecEventID     = "d892a65e7677e0554ebb70ee16deeb6a0727dba46450fb4bc001291d7bff971b"
	vecEventSig    = "7fd38992b70b5e9e113644e51b4c8ee2227f3bdd402b1855f8786c0600394ab3ec2621742a7bad0b0000b93d4d1ae6e39525f286a3c1029f43f46c3359a6c76f"
	vecEventAt     = 1713956400
	vecContent     = "owner-attested agent event"
)

func vecTag() nostr.Tag { return nostr.Tag{AuthTagName, vecOwnerPub, vecConditions, vecSig} }

func vecEvent() *nostr.Event {
	return &nostr.Event{
		ID:        vecEventID,
		PubKey:    vecAgentPub,
		CreatedAt: vecEventAt,
		Kind:      1,
		Tags:      nostr.Tags{vecTag()},
		Content:   vecContent,
		Sig:       vecEventSig,
	}
}

func TestSpecVector(t *testing.T) {
	owner, err := KeysFromSecretHex(vecOwnerSecret)
	if err != nil || owner.PublicHex != vecOwnerPub {
		t.Fatalf("owner pub = %q, %v", owner.PublicHex, err)
	}
	agent, err := KeysFromSecretHex(vecAgentSecret)
	if err != nil || agent.PublicHex != vecAgentPub {
		t.Fatalf("agent pub = %q, %v", agent.PublicHex, err)
	}
	h := SigningHash(vecAgentPub, vecConditions)
	if got := hex.EncodeToString(h[:]); got != vecHash {
		t.Fatalf("sha256(preimage) = %s, want %s", got, vecHash)
	}
	// The published signature verifies.
	a, err := VerifyAuthTag(vecTag(), vecAgentPub)
	if err != nil {
		t.Fatalf("spec tag: %v", err)
	}
	if a.Owner != vecOwnerPub || a.Agent != vecAgentPub || a.RawConditions != vecConditions {
		t.Fatalf("attestation = %+v", a)
	}
	if exp, ok := a.Conditions.Expiry(); !ok || exp != 1713957000 {
		t.Fatalf("expiry %d %v", exp, ok)
	}
	// Tag bytes (compact JSON) as in the spec.
	if got := hex.EncodeToString([]byte(TagJSON(vecTag()))); got != vecTagBytesHex {
		t.Fatalf("tag bytes differ:\n%s\n%s", got, vecTagBytesHex)
	}
	// The canonical form of the spec conditions is the spec string itself.
	if a.Conditions.String() != vecConditions {
		t.Fatalf("canonical form %q", a.Conditions.String())
	}
	// Our signer reproduces the same (owner, conditions) tag. BIP-340
	// signatures depend on the nonce, so the signature bytes differ from
	// the spec's; it must verify all the same.
	tag, err := Attest(vecOwnerSecret, vecAgentPub, a.Conditions)
	if err != nil {
		t.Fatal(err)
	}
	if tag[0] != "auth" || tag[1] != vecOwnerPub || tag[2] != vecConditions || len(tag[3]) != 128 {
		t.Fatalf("Attest tag = %v", tag)
	}
	if _, err := VerifyAuthTag(tag, vecAgentPub); err != nil {
		t.Fatalf("own tag: %v", err)
	}
	// The signed event example.
	ev := vecEvent()
	if ev.GetID() != vecEventID {
		t.Fatalf("event id = %s", ev.GetID())
	}
	a, err = VerifyEvent(ev)
	if err != nil {
		t.Fatalf("VerifyEvent(spec event): %v", err)
	}
	if a.Owner != vecOwnerPub {
		t.Fatalf("owner %s", a.Owner)
	}
}

// mutate returns a copy of the spec event changed by f and re-signed by the
// agent (so that only the auth tag is at fault).
func mutate(t *testing.T, f func(ev *nostr.Event)) *nostr.Event {
	t.Helper()
	ev := vecEvent()
	ev.Tags = nostr.Tags{append(nostr.Tag{}, vecTag()...)}
	f(ev)
	if err := ev.Sign(vecAgentSecret); err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestVerifyEventNegative(t *testing.T) {
	third, _ := KeysFromSecretHex("0000000000000000000000000000000000000000000000000000000000000003")
	// A validly signed tag for a different agent.
	wrongAgentTag, err := AttestRaw(vecOwnerSecret, third.PublicHex, vecConditions)
	if err != nil {
		t.Fatal(err)
	}
	// A self-attestation built by hand (Attest refuses it).
	selfTag := forgeSelfTag(t)

	cases := []struct {
		name string
		ev   *nostr.Event
		want error
	}{
		{"two auth tags", mutate(t, func(ev *nostr.Event) { ev.Tags = append(ev.Tags, vecTag()) }), ErrMultipleAuthTags},
		{"two different auth tags", mutate(t, func(ev *nostr.Event) { ev.Tags = append(ev.Tags, wrongAgentTag) }), ErrMultipleAuthTags},
		{"no auth tag", mutate(t, func(ev *nostr.Event) { ev.Tags = nostr.Tags{{"t", "x"}} }), ErrNoAuthTag},
		{"three elements", mutate(t, func(ev *nostr.Event) { ev.Tags[0] = ev.Tags[0][:3] }), ErrMalformedTag},
		{"five elements", mutate(t, func(ev *nostr.Event) { ev.Tags[0] = append(ev.Tags[0], "x") }), ErrMalformedTag},
		{"trailing &", mutate(t, func(ev *nostr.Event) { ev.Tags[0][2] = "kind=1&" }), ErrBadConditions},
		{"leading zero", mutate(t, func(ev *nostr.Event) { ev.Tags[0][2] = "kind=01" }), ErrBadConditions},
		{"unknown clause", mutate(t, func(ev *nostr.Event) { ev.Tags[0][2] = "kind=1&relay=x" }), ErrBadConditions},
		{"conditions changed", mutate(t, func(ev *nostr.Event) { ev.Tags[0][2] = "kind=1&created_at<1713957001" }), ErrBadSignature},
		{"reordered conditions", mutate(t, func(ev *nostr.Event) { ev.Tags[0][2] = "created_at<1713957000&kind=1" }), ErrBadSignature},
		{"wrong sig", mutate(t, func(ev *nostr.Event) { ev.Tags[0][3] = strings.Repeat("0", 127) + "1" }), ErrBadSignature},
		{"sig flipped bit", mutate(t, func(ev *nostr.Event) { ev.Tags[0][3] = "9" + vecSig[1:] }), ErrBadSignature},
		{"uppercase sig", mutate(t, func(ev *nostr.Event) { ev.Tags[0][3] = strings.ToUpper(vecSig) }), ErrBadSignature},
		{"short sig", mutate(t, func(ev *nostr.Event) { ev.Tags[0][3] = vecSig[:126] }), ErrBadSignature},
		{"uppercase owner", mutate(t, func(ev *nostr.Event) { ev.Tags[0][1] = strings.ToUpper(vecOwnerPub) }), ErrBadOwnerKey},
		{"short owner", mutate(t, func(ev *nostr.Event) { ev.Tags[0][1] = vecOwnerPub[:62] }), ErrBadOwnerKey},
		{"long owner", mutate(t, func(ev *nostr.Event) { ev.Tags[0][1] = vecOwnerPub + "00" }), ErrBadOwnerKey},
		{"owner not on curve", mutate(t, func(ev *nostr.Event) { ev.Tags[0][1] = strings.Repeat("f", 64) }), ErrBadOwnerKey},
		{"wrong agent", mutate(t, func(ev *nostr.Event) { ev.Tags[0] = wrongAgentTag }), ErrBadSignature},
		{"self-attestation", mutate(t, func(ev *nostr.Event) { ev.Tags[0] = selfTag }), ErrSelfAttestation},
		{"expired", mutate(t, func(ev *nostr.Event) { ev.CreatedAt = 1713957000 }), ErrExpired},
		{"wrong kind", mutate(t, func(ev *nostr.Event) { ev.Kind = 7 }), ErrWrongKind},
		{"bad event sig", func() *nostr.Event { ev := vecEvent(); ev.Sig = strings.Repeat("1", 128); return ev }(), ErrInvalidEvent},
		{"bad event id", func() *nostr.Event { ev := vecEvent(); ev.Content = "changed"; return ev }(), ErrInvalidEvent},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := VerifyEvent(tc.ev)
			if err == nil {
				t.Fatalf("accepted: %+v", a)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %q, want %v", err, tc.want)
			}
		})
	}
}

func TestNotYetValid(t *testing.T) {
	conds := Conditions{}.WithNotBefore(1000).WithExpiry(2000)
	tag, err := Attest(vecOwnerSecret, vecAgentPub, conds)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyAuthTagFor(tag, vecAgentPub, 1, 1000); !errors.Is(err, ErrNotYetValid) {
		t.Fatalf("at bound: %v", err)
	}
	if _, err := VerifyAuthTagFor(tag, vecAgentPub, 1, 999); !errors.Is(err, ErrNotYetValid) {
		t.Fatalf("before bound: %v", err)
	}
	if _, err := VerifyAuthTagFor(tag, vecAgentPub, 1, 1001); err != nil {
		t.Fatalf("inside: %v", err)
	}
	if _, err := VerifyAuthTagFor(tag, vecAgentPub, 1, 2000); !errors.Is(err, ErrExpired) {
		t.Fatalf("expired: %v", err)
	}
}

func TestVerifyAuthTagAgentChecks(t *testing.T) {
	if _, err := VerifyAuthTag(vecTag(), strings.ToUpper(vecAgentPub)); !errors.Is(err, ErrBadAgentKey) {
		t.Errorf("uppercase agent: %v", err)
	}
	if _, err := VerifyAuthTag(vecTag(), vecAgentPub[:60]); !errors.Is(err, ErrBadAgentKey) {
		t.Errorf("short agent: %v", err)
	}
	if _, err := VerifyAuthTag(vecTag(), vecOwnerPub); !errors.Is(err, ErrSelfAttestation) {
		t.Errorf("owner as agent: %v", err)
	}
	if _, err := VerifyAuthTag(nostr.Tag{"delegation", vecOwnerPub, vecConditions, vecSig}, vecAgentPub); !errors.Is(err, ErrMalformedTag) {
		t.Errorf("wrong tag name: %v", err)
	}
}

func TestAttestRefusals(t *testing.T) {
	if _, err := Attest(vecOwnerSecret, vecOwnerPub, Conditions{}); !errors.Is(err, ErrSelfAttestation) {
		t.Errorf("self: %v", err)
	}
	if _, err := Attest(strings.Repeat("0", 64), vecAgentPub, Conditions{}); !errors.Is(err, ErrBadSecretKey) {
		t.Errorf("zero secret: %v", err)
	}
	// n itself is out of range.
	n := "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
	if _, err := Attest(n, vecAgentPub, Conditions{}); !errors.Is(err, ErrBadSecretKey) {
		t.Errorf("secret = n: %v", err)
	}
	if _, err := Attest(vecOwnerSecret, "zz", Conditions{}); !errors.Is(err, ErrBadAgentKey) {
		t.Errorf("bad agent: %v", err)
	}
	if _, err := Attest(vecOwnerSecret, vecAgentPub, Conditions{}.WithKind(65536)); !errors.Is(err, ErrBadConditions) {
		t.Errorf("kind out of range: %v", err)
	}
	if _, err := AttestRaw(vecOwnerSecret, vecAgentPub, "kind=1&"); !errors.Is(err, ErrBadConditions) {
		t.Errorf("raw bad conditions: %v", err)
	}
	// Empty conditions are allowed by the library.
	tag, err := Attest(vecOwnerSecret, vecAgentPub, Conditions{})
	if err != nil || tag[2] != "" {
		t.Fatalf("empty conditions: %v %v", tag, err)
	}
	if _, err := VerifyAuthTagFor(tag, vecAgentPub, 30000, 0); err != nil {
		t.Fatal(err)
	}
}

func TestAttestationTagRoundTrip(t *testing.T) {
	a, err := ParseAuthTag(vecTag())
	if err != nil {
		t.Fatal(err)
	}
	if a.Agent != "" {
		t.Fatal("ParseAuthTag must not set Agent")
	}
	got := a.Tag()
	for i := range got {
		if got[i] != vecTag()[i] {
			t.Fatalf("Tag() = %v", got)
		}
	}
}

// forgeSelfTag signs a tag whose owner is the agent itself (Attest refuses
// to make one, so sign directly).
func forgeSelfTag(t *testing.T) nostr.Tag {
	t.Helper()
	sk, err := parseSecretHex(vecAgentSecret)
	if err != nil {
		t.Fatal(err)
	}
	h := SigningHash(vecAgentPub, vecConditions)
	sig, err := schnorr.Sign(sk, h[:])
	if err != nil {
		t.Fatal(err)
	}
	return nostr.Tag{AuthTagName, vecAgentPub, vecConditions, hex.EncodeToString(sig.Serialize())}
}

func TestTagJSON(t *testing.T) {
	s := TagJSON(vecTag())
	if !strings.Contains(s, vecConditions) {
		t.Fatalf("conditions escaped: %s", s)
	}
	tag, err := ParseTagJSON("  " + s + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyAuthTag(tag, vecAgentPub); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "{}", "[1,2]", `["auth"] x`, `["auth","a"`} {
		if _, err := ParseTagJSON(bad); !errors.Is(err, ErrMalformedTag) {
			t.Errorf("ParseTagJSON(%q) = %v", bad, err)
		}
	}
}
