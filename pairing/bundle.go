package pairing

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// App is the "app" field of hive's custom payload.
const App = "hive"

// DefaultDeviceExpiry is the lifetime of a device attestation.
const DefaultDeviceExpiry = 90 * 24 * time.Hour

// ErrBundle is wrapped by every error about hive's custom payload.
var ErrBundle = errors.New("invalid hive pairing payload")

// Bundle is hive's custom payload: everything a new device needs to reach
// the hub as itself, attested by its owner.
type Bundle struct {
	App    string    `json:"app"`           // "hive"
	Hubs   []string  `json:"hubs"`          // the hub's ws:// or wss:// URLs
	Pin    string    `json:"pin,omitempty"` // SPKI pin of the hub's TLS certificate, sha256/<base64>
	Owner  string    `json:"owner"`         // the owner's public key (hex)
	Device string    `json:"device"`        // the attested device key (hex), from the offer
	Auth   nostr.Tag `json:"auth"`          // NIP-OA ["auth", owner, conditions, sig] for Device
}

// NewBundle attests devicePub by owner as a paired device (the device
// clause, identity.AttestDevice), valid from now for expires, and packs it
// with the hub's URLs and pin.
func NewBundle(owner identity.Keys, devicePub string, hubs []string, pin string, expires time.Duration, now time.Time) (*Bundle, error) {
	if devicePub == "" {
		return nil, fmt.Errorf("%w: the joining device sent no device key (it is not a hive client); pair with --transfer-key to send your own key instead", ErrBundle)
	}
	if expires <= 0 {
		return nil, fmt.Errorf("%w: the attestation needs a positive expiry", ErrBundle)
	}
	conds := identity.Conditions{}.WithNotBefore(now.Unix() - 1).WithExpiry(now.Add(expires).Unix())
	tag, err := identity.AttestDevice(owner.SecretHex, devicePub, conds)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBundle, err)
	}
	return &Bundle{App: App, Hubs: hubs, Pin: pin, Owner: owner.PublicHex, Device: devicePub, Auth: tag}, nil
}

// Encode renders the bundle as the payload string.
func (b *Bundle) Encode() (string, error) {
	j, err := json.Marshal(b)
	return string(j), err
}

// ParseBundle reads a custom payload and checks it is hive's, for
// devicePub, with an attestation by Owner that verifies for devicePub and
// is valid now, and at least one ws:// or wss:// hub URL.
func ParseBundle(payload, devicePub string, now time.Time) (*Bundle, *identity.Attestation, error) {
	var b Bundle
	if err := json.Unmarshal([]byte(payload), &b); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBundle, err)
	}
	if b.App != App {
		return nil, nil, fmt.Errorf("%w: app %q, want %q", ErrBundle, b.App, App)
	}
	if b.Device != devicePub {
		return nil, nil, fmt.Errorf("%w: it attests %s, not this device's key %s", ErrBundle, b.Device, devicePub)
	}
	a, err := identity.VerifyAuthTag(b.Auth, devicePub)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBundle, err)
	}
	if !a.Device {
		return nil, nil, fmt.Errorf("%w: the attestation is not a device attestation (no %s clause): pair with a newer hive", ErrBundle, identity.DeviceClause)
	}
	if a.Owner != b.Owner {
		return nil, nil, fmt.Errorf("%w: the attestation is by %s, the payload names owner %s", ErrBundle, a.Owner, b.Owner)
	}
	if err := a.Conditions.CheckTime(now.Unix()); err != nil {
		return nil, nil, fmt.Errorf("%w: attestation not valid now: %v", ErrBundle, err)
	}
	if len(b.Hubs) == 0 {
		return nil, nil, fmt.Errorf("%w: no hub URL", ErrBundle)
	}
	for _, h := range b.Hubs {
		if err := checkRelayURL(h); err != nil {
			return nil, nil, fmt.Errorf("%w: hub %v", ErrBundle, err)
		}
	}
	return &b, a, nil
}
