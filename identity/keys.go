// Package identity holds hive's key handling and NIP-OA owner attestations:
// key files (nsec / NIP-49 ncryptsec, mode 0600), the ["auth", owner,
// conditions, sig] tag, its conditions language, and owner-signed
// revocations (kind 30450). It has no network code and no global state.
package identity

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// Key errors. Returned errors wrap one of these (errors.Is) and carry a
// message that names the file and the fix.
var (
	ErrBadSecretKey       = errors.New("invalid secret key")
	ErrKeyFormat          = errors.New("unrecognised key file format")
	ErrKeyFilePermissions = errors.New("key file is accessible by group or others")
	ErrKeyFileExists      = errors.New("key file already exists")
	ErrWrongPassphrase    = errors.New("wrong passphrase")
	ErrPassphraseRequired = errors.New("passphrase required")
)

// Keys is a secp256k1 key pair in Nostr's hex form. Its String and GoString
// never show the secret.
type Keys struct {
	SecretHex string // 64 lowercase hex
	PublicHex string // 64 lowercase hex, BIP-340 x-only
}

// GenerateKeys makes a new random key pair.
func GenerateKeys() (Keys, error) {
	sk, err := btcec.NewPrivateKey()
	if err != nil {
		return Keys{}, fmt.Errorf("generating key: %w", err)
	}
	b := sk.Key.Bytes()
	return KeysFromSecretHex(hex.EncodeToString(b[:]))
}

// KeysFromSecretHex derives the key pair from a 64 character hex secret
// (either case). The secret must be in 1..n-1.
func KeysFromSecretHex(secretHex string) (Keys, error) {
	sk, err := parseSecretHex(strings.ToLower(secretHex))
	if err != nil {
		return Keys{}, err
	}
	b := sk.Key.Bytes()
	return Keys{
		SecretHex: hex.EncodeToString(b[:]),
		PublicHex: hex.EncodeToString(schnorr.SerializePubKey(sk.PubKey())),
	}, nil
}

// ParseSecret reads a secret given as nsec1... or as 64 hex characters;
// surrounding whitespace is ignored.
func ParseSecret(s string) (Keys, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(strings.ToLower(s), "nsec1") {
		prefix, v, err := nip19.Decode(s)
		if err != nil || prefix != "nsec" {
			return Keys{}, fmt.Errorf("%w: cannot decode nsec: %v", ErrBadSecretKey, err)
		}
		return KeysFromSecretHex(v.(string))
	}
	if strings.HasPrefix(strings.ToLower(s), "ncryptsec1") {
		return Keys{}, fmt.Errorf("%w: this is an encrypted ncryptsec key; load it as a key file instead", ErrBadSecretKey)
	}
	if len(s) == 64 {
		return KeysFromSecretHex(s)
	}
	return Keys{}, fmt.Errorf("%w: want nsec1... or 64 hex characters", ErrBadSecretKey)
}

// ParsePublicKey reads a public key given as npub1... or 64 hex characters
// (either case) and returns it as 64 lowercase hex. The key must be a valid
// x-only secp256k1 point.
func ParsePublicKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	var h string
	switch {
	case strings.HasPrefix(strings.ToLower(s), "npub1"):
		prefix, v, err := nip19.Decode(s)
		if err != nil || prefix != "npub" {
			return "", fmt.Errorf("invalid public key: cannot decode npub: %v", err)
		}
		h = v.(string)
	case strings.HasPrefix(strings.ToLower(s), "nsec1"):
		return "", errors.New("invalid public key: this is a secret key (nsec); pass the npub or hex public key")
	default:
		h = strings.ToLower(s)
	}
	if err := checkPubHex(h); err != nil {
		return "", fmt.Errorf("invalid public key: %v (want npub1... or 64 hex characters)", err)
	}
	return h, nil
}

// Npub returns the public key as bech32 npub1....
func (k Keys) Npub() string {
	s, _ := nip19.EncodePublicKey(k.PublicHex)
	return s
}

// Nsec returns the secret key as bech32 nsec1....
func (k Keys) Nsec() string {
	s, _ := nip19.EncodePrivateKey(k.SecretHex)
	return s
}

// String shows the public key as npub and hex, never the secret.
func (k Keys) String() string { return k.Npub() + " (" + k.PublicHex + ")" }

// GoString keeps %#v from printing the secret.
func (k Keys) GoString() string {
	return "identity.Keys{PublicHex:" + fmt.Sprintf("%q", k.PublicHex) + "}"
}

func parseSecretHex(s string) (*btcec.PrivateKey, error) {
	if !isLowerHex(s, 64) {
		return nil, fmt.Errorf("%w: want 64 hex characters", ErrBadSecretKey)
	}
	b, _ := hex.DecodeString(s)
	var scalar btcec.ModNScalar
	if overflow := scalar.SetByteSlice(b); overflow || scalar.IsZero() {
		return nil, fmt.Errorf("%w: not in the secp256k1 range 1..n-1", ErrBadSecretKey)
	}
	return btcec.PrivKeyFromScalar(&scalar), nil
}

// checkPubHex checks 64 lowercase hex forming a valid x-only point.
func checkPubHex(s string) error {
	if !isLowerHex(s, 64) {
		return fmt.Errorf("must be 64 lowercase hex characters, got %q", truncate(s, 80))
	}
	if !nostr.IsValidPublicKey(s) {
		return fmt.Errorf("%s is not a valid secp256k1 x-only public key", s)
	}
	return nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
