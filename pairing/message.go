package pairing

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Message types of NIP-AB v1 (the plaintext "type" field).
const (
	TypeOffer      = "offer"
	TypeSASConfirm = "sas-confirm"
	TypePayload    = "payload"
	TypeComplete   = "complete"
	TypeAbort      = "abort"
)

// Payload types of NIP-AB v1.
const (
	PayloadNsec    = "nsec"
	PayloadBunker  = "bunker"
	PayloadConnect = "connect"
	PayloadCustom  = "custom"
)

// Abort reasons of NIP-AB v1. An unknown reason is read as ReasonProtocol.
const (
	ReasonSASMismatch = "sas_mismatch"
	ReasonUserDenied  = "user_denied"
	ReasonTimeout     = "timeout"
	ReasonProtocol    = "protocol_error"
)

// MaxPlaintext is the largest decrypted message NIP-AB v1 accepts (bytes).
const MaxPlaintext = 65535

// errMessage is wrapped by message decoding errors.
var errMessage = errors.New("malformed pairing message")

// Message is one decrypted pairing message. Only the fields of its Type are
// set. Fields a v1 peer does not know are ignored by it (JSON objects may
// carry extra members), which is where hive's profile puts DevicePubkey.
type Message struct {
	Type           string `json:"type"`
	Version        *int   `json:"version,omitempty"`         // offer; absent means 1
	SessionID      string `json:"session_id,omitempty"`      // offer
	TranscriptHash string `json:"transcript_hash,omitempty"` // sas-confirm
	PayloadType    string `json:"payload_type,omitempty"`    // payload
	Payload        string `json:"payload,omitempty"`         // payload
	Success        *bool  `json:"success,omitempty"`         // complete
	Reason         string `json:"reason,omitempty"`          // abort

	// DevicePubkey is hive's extension of the offer: the x-only public key
	// (64 lowercase hex) of the key the target generated for itself, which
	// the source attests in its custom payload.
	DevicePubkey string `json:"device_pubkey,omitempty"`
}

// encode renders m as JSON.
func (m *Message) encode() ([]byte, error) { return json.Marshal(m) }

// decodeMessage parses a plaintext, checking the fields its type needs.
func decodeMessage(plain []byte) (*Message, error) {
	if len(plain) > MaxPlaintext {
		return nil, fmt.Errorf("%w: %d bytes", errMessage, len(plain))
	}
	var m Message
	if err := json.Unmarshal(plain, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", errMessage, err)
	}
	switch m.Type {
	case TypeOffer:
		if m.Version != nil && *m.Version != Version {
			return nil, fmt.Errorf("%w: offer version %d", errMessage, *m.Version)
		}
		if _, ok := parseHex32(m.SessionID); !ok {
			return nil, fmt.Errorf("%w: offer session_id", errMessage)
		}
		if m.DevicePubkey != "" {
			pk, ok := parseHex32(m.DevicePubkey)
			if !ok {
				return nil, fmt.Errorf("%w: offer device_pubkey", errMessage)
			}
			if _, err := parseXOnly(pk); err != nil {
				return nil, fmt.Errorf("%w: offer device_pubkey: %v", errMessage, err)
			}
		}
	case TypeSASConfirm:
		if _, ok := parseHex32(m.TranscriptHash); !ok {
			return nil, fmt.Errorf("%w: sas-confirm transcript_hash", errMessage)
		}
	case TypePayload:
		switch m.PayloadType {
		case PayloadNsec, PayloadBunker, PayloadConnect, PayloadCustom:
		default:
			return nil, fmt.Errorf("%w: payload_type %q", errMessage, m.PayloadType)
		}
	case TypeComplete:
		if m.Success == nil {
			return nil, fmt.Errorf("%w: complete without success", errMessage)
		}
	case TypeAbort:
		switch m.Reason {
		case ReasonSASMismatch, ReasonUserDenied, ReasonTimeout, ReasonProtocol:
		default:
			m.Reason = ReasonProtocol
		}
	default:
		return nil, fmt.Errorf("%w: unknown type %q", errMessage, m.Type)
	}
	return &m, nil
}

// wipeMessage clears what a message can hold of secrets (best effort: Go
// strings are immutable, so this drops the references for the collector).
func (m *Message) wipe() {
	if m != nil {
		*m = Message{}
	}
}
