package pairing

import (
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// Kind is the single event kind of NIP-AB (ephemeral range: relays do not store it).
const Kind = 24134

// NIP-44 v2 ciphertext length bounds in base64 characters.
const (
	minContent = 132
	maxContent = 87472
)

// MaxJitter is how far back created_at is set (a random 0..30 s), so the
// timestamp does not tell when a human confirmed.
const MaxJitter = 30

// errEnvelope is wrapped by every reason an event is not a valid pairing
// event for this receiver.
var errEnvelope = errors.New("not a pairing event for this session")

// conversationKey is NIP-44 v2's key: HKDF-Extract(salt="nip44-v2",
// IKM=unhashed ECDH x-coordinate) of the two ephemeral keys.
func conversationKey(sk, peer [32]byte) ([32]byte, error) {
	var ck [32]byte
	shared, err := ECDH(sk, peer)
	if err != nil {
		return ck, err
	}
	prk, err := hkdf.Extract(sha256.New, shared[:], []byte("nip44-v2"))
	wipe(shared[:])
	if err != nil {
		return ck, err
	}
	copy(ck[:], prk)
	wipe(prk)
	return ck, nil
}

// seal encrypts msg to recipient with NIP-44 v2 and signs a kind 24134
// event with tags [["p", recipient]] as sk.
func seal(sk [32]byte, conv [32]byte, recipient [32]byte, msg *Message, now time.Time) (*nostr.Event, error) {
	plain, err := msg.encode()
	if err != nil {
		return nil, err
	}
	ct, err := nip44.Encrypt(string(plain), conv)
	wipe(plain)
	if err != nil {
		return nil, fmt.Errorf("nip44: %w", err)
	}
	jitter, err := rand.Int(rand.Reader, big.NewInt(MaxJitter+1))
	if err != nil {
		return nil, err
	}
	ev := &nostr.Event{
		Kind:      Kind,
		CreatedAt: nostr.Timestamp(now.Unix() - jitter.Int64()),
		Tags:      nostr.Tags{{"p", hex.EncodeToString(recipient[:])}},
		Content:   ct,
	}
	if err := signEvent(ev, sk); err != nil {
		return nil, err
	}
	return ev, nil
}

// signEvent signs ev with a BIP-340 signature by sk without turning the key
// into a (non-wipeable) string.
func signEvent(ev *nostr.Event, sk [32]byte) error {
	priv, pub := btcec.PrivKeyFromBytes(sk[:])
	defer priv.Zero()
	ev.PubKey = hex.EncodeToString(pub.SerializeCompressed()[1:])
	id := sha256.Sum256(ev.Serialize())
	sig, err := schnorr.Sign(priv, id[:])
	if err != nil {
		return fmt.Errorf("signing: %w", err)
	}
	ev.ID = hex.EncodeToString(id[:])
	ev.Sig = hex.EncodeToString(sig.Serialize())
	return nil
}

// checkEnvelope applies the receiver checks that need no key: valid id and
// signature, a valid sender key, kind 24134, a p tag naming me, content
// length within NIP-44 v2 bounds. It returns the sender's key.
func checkEnvelope(ev *nostr.Event, me string) ([32]byte, error) {
	var sender [32]byte
	if ev == nil {
		return sender, fmt.Errorf("%w: nil event", errEnvelope)
	}
	if ev.Kind != Kind {
		return sender, fmt.Errorf("%w: kind %d", errEnvelope, ev.Kind)
	}
	pk, ok := parseHex32(ev.PubKey)
	if !ok {
		return sender, fmt.Errorf("%w: pubkey", errEnvelope)
	}
	if _, err := parseXOnly(pk); err != nil {
		return sender, fmt.Errorf("%w: %v", errEnvelope, err)
	}
	if !ev.CheckID() {
		return sender, fmt.Errorf("%w: id does not match", errEnvelope)
	}
	if ok, _ := ev.CheckSignature(); !ok {
		return sender, fmt.Errorf("%w: bad signature", errEnvelope)
	}
	mine := false
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "p" && t[1] == me {
			mine = true
		}
	}
	if !mine {
		return sender, fmt.Errorf("%w: no p tag naming me", errEnvelope)
	}
	if n := len(ev.Content); n < minContent || n > maxContent {
		return sender, fmt.Errorf("%w: content length %d", errEnvelope, n)
	}
	return pk, nil
}

// open decrypts an event's content with conv and decodes the message.
func open(ev *nostr.Event, conv [32]byte) (*Message, error) {
	plain, err := nip44.Decrypt(ev.Content, conv)
	if err != nil {
		return nil, fmt.Errorf("%w: nip44: %v", errEnvelope, err)
	}
	return decodeMessage([]byte(plain))
}
