package pairing

import (
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
)

// HKDF info labels of NIP-AB v1.
const (
	labelSessionID  = "nostr-pair-session-id"
	labelSAS        = "nostr-pair-sas-v1"
	labelTranscript = "nostr-pair-transcript-v1"
)

// ErrBadKey is wrapped by errors about malformed or off-curve keys.
var ErrBadKey = errors.New("invalid key")

// hkdf32 is RFC 5869 HKDF-SHA256 with output length 32.
func hkdf32(ikm, salt []byte, info string) [32]byte {
	var out [32]byte
	k, err := hkdf.Key(sha256.New, ikm, salt, info, 32)
	if err != nil { // only for lengths beyond 255*32 bytes
		panic(err)
	}
	copy(out[:], k)
	wipe(k)
	return out
}

// SessionID is HKDF(IKM=session_secret, salt="", info="nostr-pair-session-id").
func SessionID(secret [32]byte) [32]byte {
	return hkdf32(secret[:], nil, labelSessionID)
}

// SASInput is HKDF(IKM=ecdh_shared, salt=session_secret, info="nostr-pair-sas-v1").
func SASInput(shared, secret [32]byte) [32]byte {
	return hkdf32(shared[:], secret[:], labelSAS)
}

// SASCode is the big-endian uint32 of the first four bytes of sas_input
// modulo 1,000,000, as six zero-padded digits.
func SASCode(sasInput [32]byte) string {
	return fmt.Sprintf("%06d", binary.BigEndian.Uint32(sasInput[:4])%1_000_000)
}

// TranscriptHash is HKDF(IKM=session_id||source_pk||target_pk||sas_input,
// salt=session_secret, info="nostr-pair-transcript-v1"); the public keys are
// 32-byte x-only.
func TranscriptHash(sessionID, sourcePub, targetPub, sasInput, secret [32]byte) [32]byte {
	var t [128]byte
	copy(t[0:], sessionID[:])
	copy(t[32:], sourcePub[:])
	copy(t[64:], targetPub[:])
	copy(t[96:], sasInput[:])
	h := hkdf32(t[:], secret[:], labelTranscript)
	wipe(t[:])
	return h
}

// ECDH returns the unhashed 32-byte x-coordinate of sk·P, where P is the
// even-y point with x-coordinate peerPub (NIP-AB requires the raw
// x-coordinate; it is not hashed).
func ECDH(sk, peerPub [32]byte) ([32]byte, error) {
	var out [32]byte
	priv, _ := btcec.PrivKeyFromBytes(sk[:])
	defer priv.Zero()
	if priv.Key.IsZero() {
		return out, fmt.Errorf("%w: zero secret key", ErrBadKey)
	}
	pub, err := parseXOnly(peerPub)
	if err != nil {
		return out, err
	}
	s := btcec.GenerateSharedSecret(priv, pub)
	copy(out[:], s)
	wipe(s)
	return out, nil
}

// PublicKey returns the x-only public key of sk.
func PublicKey(sk [32]byte) ([32]byte, error) {
	var out [32]byte
	priv, _ := btcec.PrivKeyFromBytes(sk[:])
	defer priv.Zero()
	if priv.Key.IsZero() {
		return out, fmt.Errorf("%w: zero secret key", ErrBadKey)
	}
	copy(out[:], priv.PubKey().SerializeCompressed()[1:])
	return out, nil
}

func parseXOnly(x [32]byte) (*btcec.PublicKey, error) {
	var c [33]byte
	c[0] = 0x02
	copy(c[1:], x[:])
	pub, err := btcec.ParsePubKey(c[:])
	if err != nil {
		return nil, fmt.Errorf("%w: %x is not an x-coordinate on secp256k1", ErrBadKey, x)
	}
	return pub, nil
}

// parseHex32 decodes exactly 64 lowercase hex characters.
func parseHex32(s string) ([32]byte, bool) {
	var out [32]byte
	if len(s) != 64 {
		return out, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return out, false
		}
	}
	_, err := hex.Decode(out[:], []byte(s))
	return out, err == nil
}

// equal32 compares in constant time.
func equal32(a, b [32]byte) bool { return subtle.ConstantTimeCompare(a[:], b[:]) == 1 }

// wipe zeroes b.
func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
