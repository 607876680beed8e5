package client

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// LoadAttestedKey reads a key of its own (an agent's under hive bridge, a
// workflow runner's) and its owner's attestation, and checks that the
// attestation verifies for this key, now, for every kind in publishes.
// Errors say how to fix the file at fault; what names the key's user in
// them ("the bridge", "the runner").
func LoadAttestedKey(keyFile, tagFile, what string, publishes []int, pass identity.PassphraseFunc) (identity.Keys, nostr.Tag, *identity.Attestation, error) {
	keys, err := identity.LoadKeyFile(keyFile, pass)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return keys, nil, nil, fmt.Errorf("key file %s does not exist: create it with: hive key new --out %s", keyFile, keyFile)
		}
		return keys, nil, nil, fmt.Errorf("key file %s: %w", keyFile, err)
	}
	raw, err := os.ReadFile(tagFile)
	if err != nil {
		return keys, nil, nil, fmt.Errorf("attestation file %s: %w (the owner creates it with: hive agent attest --key OWNER.key --agent %s --expires 30d > %s)", tagFile, err, keys.Npub(), tagFile)
	}
	tag, err := identity.ParseAttestationText(string(raw))
	if err != nil {
		return keys, nil, nil, fmt.Errorf("attestation file %s: %w", tagFile, err)
	}
	att, err := identity.VerifyAuthTag(tag, keys.PublicHex)
	if err != nil {
		return keys, nil, nil, fmt.Errorf("attestation file %s does not verify for this agent (%s): %w; have the owner attest this key", tagFile, keys.Npub(), err)
	}
	now := time.Now().Unix()
	if err := att.Conditions.CheckTime(now); err != nil {
		return keys, nil, nil, fmt.Errorf("attestation file %s is not valid now (%v): have the owner issue a new one with hive agent attest", tagFile, err)
	}
	for _, k := range publishes {
		if err := att.Conditions.Check(k, now); err != nil {
			return keys, nil, nil, fmt.Errorf("attestation file %s does not cover kind %d (%v): %s publishes kinds %v; attest without --kinds", tagFile, k, err, what, publishes)
		}
	}
	return keys, tag, att, nil
}
