package identity

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/nbd-wtf/go-nostr"
)

// NIP-OA (owner attestation) constants.
const (
	// AuthTagName is the first element of an attestation tag:
	// ["auth", owner_pubkey_hex, conditions, sig_hex].
	AuthTagName = "auth"
	// AgentAuthPrefix is the domain separator of the signed string
	// "nostr:agent-auth:" + agent_pubkey_hex + ":" + conditions.
	AgentAuthPrefix = "nostr:agent-auth:"
)

// Errors returned by the NIP-OA functions. Every returned error wraps one of
// these (test with errors.Is); the message adds the detail.
var (
	ErrMalformedTag     = errors.New("malformed auth tag")
	ErrBadOwnerKey      = errors.New("invalid owner public key in auth tag")
	ErrBadAgentKey      = errors.New("invalid agent public key")
	ErrBadSignature     = errors.New("invalid auth tag signature")
	ErrSelfAttestation  = errors.New("self-attestation: owner and agent are the same key")
	ErrNoAuthTag        = errors.New("event has no auth tag")
	ErrMultipleAuthTags = errors.New("event has more than one auth tag, so it counts as having none")
	ErrInvalidEvent     = errors.New("event id or signature invalid")
)

// Attestation is a parsed NIP-OA auth tag.
type Attestation struct {
	Owner         string     // owner public key, 64 lowercase hex
	Agent         string     // agent public key the tag was verified for ("" after ParseAuthTag)
	RawConditions string     // the conditions string exactly as signed
	Conditions    Conditions // its parsed form
	Sig           string     // BIP-340 signature, 128 lowercase hex
	// Device: the conditions hold the device clause, the owner's statement
	// that the key is a paired device (see DeviceClause).
	Device bool
}

// Tag returns the wire form ["auth", owner, conditions, sig].
func (a *Attestation) Tag() nostr.Tag {
	return nostr.Tag{AuthTagName, a.Owner, a.RawConditions, a.Sig}
}

// TagJSON renders a tag as a compact JSON array, without HTML escaping (so
// "&" and "<" in conditions stay as they are), e.g. for handing an
// attestation to an agent.
func TagJSON(tag nostr.Tag) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if tag == nil {
		tag = nostr.Tag{}
	}
	_ = enc.Encode([]string(tag)) // cannot fail for a []string
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// ParseTagJSON reads a tag given as a JSON array of strings.
func ParseTagJSON(s string) (nostr.Tag, error) {
	var tag []string
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace([]byte(s))))
	if err := dec.Decode(&tag); err != nil {
		return nil, fmt.Errorf("%w: want a JSON array of strings like [\"auth\",\"<owner hex>\",\"<conditions>\",\"<sig hex>\"]: %v", ErrMalformedTag, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the JSON array", ErrMalformedTag)
	}
	return nostr.Tag(tag), nil
}

// SigningHash returns SHA-256 of the UTF-8 string
// "nostr:agent-auth:" + agentPubHex + ":" + conditions, the message the
// owner signs with BIP-340. conditions is used verbatim.
func SigningHash(agentPubHex, conditions string) [32]byte {
	return sha256.Sum256([]byte(AgentAuthPrefix + agentPubHex + ":" + conditions))
}

// Attest makes the auth tag by which the owner authorises the agent under
// conds (rendered with conds.String()). It refuses self-attestation,
// malformed keys, out-of-range conditions and the device clause (devices are
// attested by AttestDevice). It does not refuse unsatisfiable or expiry-less
// conditions; callers apply that policy.
func Attest(ownerSecretHex, agentPubHex string, conds Conditions) (nostr.Tag, error) {
	if err := conds.Validate(); err != nil {
		return nil, err
	}
	return AttestRaw(ownerSecretHex, agentPubHex, conds.String())
}

// AttestRaw is Attest with a conditions string used verbatim (it must parse,
// and hold no device clause).
func AttestRaw(ownerSecretHex, agentPubHex, conditions string) (nostr.Tag, error) {
	if err := refuseDeviceClause(conditions); err != nil {
		return nil, err
	}
	return attestRaw(ownerSecretHex, agentPubHex, conditions)
}

func attestRaw(ownerSecretHex, agentPubHex, conditions string) (nostr.Tag, error) {
	sk, err := parseSecretHex(ownerSecretHex)
	if err != nil {
		return nil, fmt.Errorf("owner secret key: %w", err)
	}
	if err := checkPubHex(agentPubHex); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadAgentKey, err)
	}
	if _, err := ParseConditions(conditions); err != nil {
		return nil, err
	}
	ownerHex := hex.EncodeToString(schnorr.SerializePubKey(sk.PubKey()))
	if ownerHex == agentPubHex {
		return nil, fmt.Errorf("%w: an owner cannot attest its own key; give the agent its own key (hive key new)", ErrSelfAttestation)
	}
	h := SigningHash(agentPubHex, conditions)
	sig, err := schnorr.Sign(sk, h[:])
	if err != nil {
		return nil, fmt.Errorf("signing attestation: %w", err)
	}
	return nostr.Tag{AuthTagName, ownerHex, conditions, hex.EncodeToString(sig.Serialize())}, nil
}

// ParseAuthTag checks the structure of an auth tag without any cryptography
// and without an agent key: exactly four elements, "auth" first, owner as 64
// lowercase hex and a valid x-only key, conditions well-formed, signature as
// 128 lowercase hex. Use VerifyAuthTag to check the signature.
func ParseAuthTag(tag nostr.Tag) (*Attestation, error) {
	if len(tag) != 4 {
		return nil, fmt.Errorf("%w: want 4 elements [\"auth\", owner_pubkey_hex, conditions, sig_hex], got %d", ErrMalformedTag, len(tag))
	}
	if tag[0] != AuthTagName {
		return nil, fmt.Errorf("%w: first element is %q, want %q", ErrMalformedTag, tag[0], AuthTagName)
	}
	if err := checkPubHex(tag[1]); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOwnerKey, err)
	}
	conds, err := ParseConditions(tag[2])
	if err != nil {
		return nil, err
	}
	if !isLowerHex(tag[3], 128) {
		return nil, fmt.Errorf("%w: must be 128 lowercase hex characters, got %d characters", ErrBadSignature, len(tag[3]))
	}
	return &Attestation{Owner: tag[1], RawConditions: tag[2], Conditions: conds, Sig: tag[3], Device: IsDeviceConditions(tag[2])}, nil
}

// VerifyAuthTag checks an auth tag for the given agent: structure (see
// ParseAuthTag), agent key as 64 lowercase hex, owner != agent, and the
// owner's BIP-340 signature over SigningHash(agent, conditions).
//
// It does NOT evaluate the conditions: anything that grants authority must
// also call Conditions.Check / CheckTime, or use VerifyAuthTagFor.
func VerifyAuthTag(tag nostr.Tag, agentPubHex string) (*Attestation, error) {
	a, err := ParseAuthTag(tag)
	if err != nil {
		return nil, err
	}
	if err := checkPubHex(agentPubHex); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadAgentKey, err)
	}
	if a.Owner == agentPubHex {
		return nil, fmt.Errorf("%w (%s)", ErrSelfAttestation, agentPubHex)
	}
	ownerBytes, _ := hex.DecodeString(a.Owner)
	pk, err := schnorr.ParsePubKey(ownerBytes)
	if err != nil { // already checked by ParseAuthTag
		return nil, fmt.Errorf("%w: %v", ErrBadOwnerKey, err)
	}
	sigBytes, _ := hex.DecodeString(a.Sig)
	sig, err := schnorr.ParseSignature(sigBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	h := SigningHash(agentPubHex, a.RawConditions)
	if !sig.Verify(h[:], pk) {
		return nil, fmt.Errorf("%w: signature by owner %s does not match agent %s and conditions %q",
			ErrBadSignature, a.Owner, agentPubHex, a.RawConditions)
	}
	a.Agent = agentPubHex
	return a, nil
}

// VerifyAuthTagFor is VerifyAuthTag plus evaluation of every clause against
// an event of the given kind and created_at.
func VerifyAuthTagFor(tag nostr.Tag, agentPubHex string, kind int, createdAt int64) (*Attestation, error) {
	a, err := VerifyAuthTag(tag, agentPubHex)
	if err != nil {
		return nil, err
	}
	if err := a.Conditions.Check(kind, createdAt); err != nil {
		return nil, err
	}
	return a, nil
}

// FindAuthTag returns the event's single auth tag. Zero auth tags give
// ErrNoAuthTag; two or more give ErrMultipleAuthTags (NIP-OA: such an event
// has no valid attestation, the first one is not picked).
func FindAuthTag(ev *nostr.Event) (nostr.Tag, error) {
	var found nostr.Tag
	n := 0
	for _, t := range ev.Tags {
		if len(t) >= 1 && t[0] == AuthTagName {
			found = t
			n++
		}
	}
	switch n {
	case 0:
		return nil, ErrNoAuthTag
	case 1:
		return found, nil
	default:
		return nil, fmt.Errorf("%w (%d auth tags)", ErrMultipleAuthTags, n)
	}
}

// VerifyEvent checks the event's id and signature, then its single auth tag
// for event.PubKey, evaluating every clause against event.Kind and
// event.CreatedAt. The local clock is never consulted.
func VerifyEvent(ev *nostr.Event) (*Attestation, error) {
	if ev == nil {
		return nil, fmt.Errorf("%w: nil event", ErrInvalidEvent)
	}
	if !ev.CheckID() {
		return nil, fmt.Errorf("%w: id does not match the event content", ErrInvalidEvent)
	}
	if ok, err := ev.CheckSignature(); !ok {
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidEvent, err)
		}
		return nil, fmt.Errorf("%w: signature does not verify", ErrInvalidEvent)
	}
	tag, err := FindAuthTag(ev)
	if err != nil {
		return nil, err
	}
	return VerifyAuthTagFor(tag, ev.PubKey, ev.Kind, int64(ev.CreatedAt))
}

// ParseAttestationText reads an attestation as printed by `hive agent attest`:
// the tag's JSON array, or the --json object holding it under "tag".
func ParseAttestationText(raw string) (nostr.Tag, error) {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "{") {
		var obj struct {
			Tag nostr.Tag `json:"tag"`
		}
		if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj.Tag == nil {
			return nil, fmt.Errorf("%w: a JSON object must hold the tag under \"tag\" (as printed by hive agent attest --json)", ErrMalformedTag)
		}
		return obj.Tag, nil
	}
	return ParseTagJSON(raw)
}
