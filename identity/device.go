package identity

import (
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// DeviceClause marks an attestation as a paired device's. It is an ordinary
// NIP-OA clause that every real event satisfies (created_at > 0), so any
// NIP-OA verifier accepts the tag; hive reads its presence in the signed
// conditions as the owner's statement that the key is a device. The owner
// signs it, so no key can grant it to itself; hive pair writes it and
// nothing else does (spec/identity.md, "Devices").
const DeviceClause = "created_at>0"

// IsDeviceConditions reports whether a conditions string, as signed, holds
// the device clause.
func IsDeviceConditions(raw string) bool {
	for clause := range strings.SplitSeq(raw, "&") {
		if clause == DeviceClause {
			return true
		}
	}
	return false
}

// AttestDevice makes the auth tag by which the owner enrols devicePub as a
// paired device: the device clause first, then conds (which must bound the
// attestation's lifetime).
func AttestDevice(ownerSecretHex, devicePub string, conds Conditions) (nostr.Tag, error) {
	if err := conds.Validate(); err != nil {
		return nil, err
	}
	if _, ok := conds.Expiry(); !ok {
		return nil, fmt.Errorf("%w: a device attestation needs an expiry", ErrBadConditions)
	}
	if after, ok := conds.NotBefore(); ok && after == 0 {
		return nil, fmt.Errorf("%w: give the device's not-before time, not the device clause itself", ErrBadConditions)
	}
	return attestRaw(ownerSecretHex, devicePub, DeviceClause+"&"+conds.String())
}

// refuseDeviceClause keeps the device clause out of every attestation but
// AttestDevice's.
func refuseDeviceClause(conditions string) error {
	if IsDeviceConditions(conditions) {
		return fmt.Errorf("%w: %q is the device clause, which only device pairing (hive pair) signs; an agent's not-before must be after 0", ErrBadConditions, DeviceClause)
	}
	return nil
}
