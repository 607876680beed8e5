package identity

import (
	"errors"
	"testing"
)

// A device attestation holds the device clause, verifies like any NIP-OA
// tag (the clause is an ordinary created_at> clause), and no other way of
// attesting produces it.
func TestDeviceClause(t *testing.T) {
	owner, _ := GenerateKeys()
	dev, _ := GenerateKeys()
	conds := Conditions{}.WithNotBefore(1700000000).WithExpiry(1800000000)
	tag, err := AttestDevice(owner.SecretHex, dev.PublicHex, conds)
	if err != nil {
		t.Fatal(err)
	}
	if tag[2] != "created_at>0&created_at>1700000000&created_at<1800000000" {
		t.Fatalf("device conditions %q", tag[2])
	}
	a, err := VerifyAuthTagFor(tag, dev.PublicHex, 9, 1700000001)
	if err != nil || !a.Device || a.Owner != owner.PublicHex {
		t.Fatalf("device tag: %+v, %v", a, err)
	}
	if !a.Conditions.Equal(conds) {
		t.Fatalf("parsed conditions %q, want %q", a.Conditions.String(), conds.String())
	}
	agent, err := Attest(owner.SecretHex, dev.PublicHex, conds)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := ParseAuthTag(agent); a.Device {
		t.Fatalf("an agent attestation %q counts as a device's", agent[2])
	}
	for name, try := range map[string]func() error{
		"Attest with created_at>0": func() error {
			_, err := Attest(owner.SecretHex, dev.PublicHex, Conditions{}.WithNotBefore(0).WithExpiry(1800000000))
			return err
		},
		"AttestRaw with the clause": func() error {
			_, err := AttestRaw(owner.SecretHex, dev.PublicHex, "kind=9&created_at>0")
			return err
		},
		"AttestSpec not-before 1": func() error {
			one := int64(1)
			_, err := AttestSpec{Now: 1700000000, ValidFor: 3600e9, NotBefore: &one}.Conditions()
			return err
		},
		"AttestDevice without expiry": func() error {
			_, err := AttestDevice(owner.SecretHex, dev.PublicHex, Conditions{})
			return err
		},
	} {
		if err := try(); !errors.Is(err, ErrBadConditions) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
	if IsDeviceConditions("created_at>01") || IsDeviceConditions("created_at>10") || !IsDeviceConditions("kind=1&created_at>0") {
		t.Error("IsDeviceConditions matches other clauses than created_at>0")
	}
}
