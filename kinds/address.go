package kinds

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// Address is a parsed NIP-01 event coordinate, "<kind>:<pubkey>:<d>".
type Address struct {
	Kind   int
	PubKey string
	D      string
}

// ParseAddress parses a coordinate strictly: the kind is plain decimal
// digits (no sign, no spaces, no leading zero) up to 65535, the pubkey is 64
// lowercase hex characters, and the d part is everything after the second
// colon (empty for replaceable kinds). Any other spelling is an error, so one
// address has exactly one spelling.
func ParseAddress(a string) (Address, error) {
	k, rest, ok := strings.Cut(a, ":")
	if !ok {
		return Address{}, fmt.Errorf("address %q is not <kind>:<pubkey>:<d>", a)
	}
	pub, d, ok := strings.Cut(rest, ":")
	if !ok {
		return Address{}, fmt.Errorf("address %q is not <kind>:<pubkey>:<d> (a replaceable kind ends with a colon)", a)
	}
	if k == "" || strings.TrimLeft(k, "0123456789") != "" || (len(k) > 1 && k[0] == '0') {
		return Address{}, fmt.Errorf("address %q: the kind must be plain decimal digits without sign or leading zero", a)
	}
	n, err := strconv.Atoi(k)
	if err != nil || n > 65535 {
		return Address{}, fmt.Errorf("address %q: kind out of range 0-65535", a)
	}
	if !nostr.IsValid32ByteHex(pub) {
		return Address{}, fmt.Errorf("address %q: the pubkey must be 64 lowercase hex characters", a)
	}
	return Address{Kind: n, PubKey: pub, D: d}, nil
}

// String spells the address canonically.
func (a Address) String() string { return fmt.Sprintf("%d:%s:%s", a.Kind, a.PubKey, a.D) }
