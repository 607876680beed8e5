package pairing

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// URI limits and names of NIP-AB v1.
const (
	// Scheme prefixes every pairing URI.
	Scheme = "nostrpair://"
	// MaxURILength is the longest URI the decoder accepts, in bytes.
	MaxURILength = 2048
	// Version is the protocol version this package speaks.
	Version = 1
)

// ErrBadURI is wrapped by every ParseURI error.
var ErrBadURI = errors.New("invalid pairing URI")

// ErrVersion is wrapped when the URI names a protocol version other than 1.
var ErrVersion = errors.New("unsupported pairing protocol version; update hive")

// URI is a decoded nostrpair:// URI: what the source shows as a QR code.
type URI struct {
	SourcePub [32]byte // the source's ephemeral x-only public key
	Secret    [32]byte // session_secret
	Relays    []string // ws:// or wss:// relay URLs, at least one
	// Pin is hive's extension (parameter "pin"): the SPKI pin of the
	// relay's TLS certificate, "sha256/<base64>". Empty when absent.
	Pin string
}

// String encodes the URI: lowercase hex, each relay (and the pin)
// percent-encoded except ASCII letters and digits, "v=1" last.
func (u *URI) String() string {
	var b strings.Builder
	b.WriteString(Scheme)
	b.WriteString(hex.EncodeToString(u.SourcePub[:]))
	b.WriteString("?secret=")
	b.WriteString(hex.EncodeToString(u.Secret[:]))
	for _, r := range u.Relays {
		b.WriteString("&relay=")
		b.WriteString(escapeAll(r))
	}
	if u.Pin != "" {
		b.WriteString("&pin=")
		b.WriteString(escapeAll(u.Pin))
	}
	b.WriteString("&v=1")
	return b.String()
}

// Wipe zeroes the session secret.
func (u *URI) Wipe() { wipe(u.Secret[:]) }

// ParseURI decodes a pairing URI. Rules: at most 2048 bytes; the
// nostrpair:// prefix; a query; a 64-character lowercase hex public key that
// is a valid x-only secp256k1 key; parameters split on "&" as key=value
// (parameters without "=" and unknown keys are ignored); v absent or 1;
// exactly one secret of 64 lowercase hex that is not all zeros; at least one
// relay, each a ws:// or wss:// URL with a host. secret, v and pin may each
// appear once.
func ParseURI(s string) (*URI, error) {
	if len(s) > MaxURILength {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrBadURI, len(s), MaxURILength)
	}
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return nil, fmt.Errorf("%w: it must start with %s", ErrBadURI, Scheme)
	}
	pk, query, ok := strings.Cut(rest, "?")
	if !ok {
		return nil, fmt.Errorf("%w: no parameters (missing \"?\")", ErrBadURI)
	}
	u := &URI{}
	if u.SourcePub, ok = parseHex32(pk); !ok {
		return nil, fmt.Errorf("%w: the public key must be 64 lowercase hex characters", ErrBadURI)
	}
	if _, err := parseXOnly(u.SourcePub); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURI, err)
	}
	seen := map[string]bool{}
	for _, p := range strings.Split(query, "&") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		switch k {
		case "secret", "v", "pin":
			if seen[k] {
				return nil, fmt.Errorf("%w: parameter %q given twice", ErrBadURI, k)
			}
			seen[k] = true
		}
		switch k {
		case "secret":
			if u.Secret, ok = parseHex32(v); !ok {
				return nil, fmt.Errorf("%w: secret must be 64 lowercase hex characters", ErrBadURI)
			}
			if u.Secret == ([32]byte{}) {
				return nil, fmt.Errorf("%w: the all-zero secret is refused", ErrBadURI)
			}
		case "v":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%w: v=%q is not a version number", ErrBadURI, v)
			}
			if n != Version {
				return nil, fmt.Errorf("%w: the code uses version %d, this hive speaks version %d", ErrVersion, n, Version)
			}
		case "relay":
			r, err := url.PathUnescape(v)
			if err != nil {
				return nil, fmt.Errorf("%w: relay %q: bad percent-encoding", ErrBadURI, v)
			}
			if err := checkRelayURL(r); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrBadURI, err)
			}
			u.Relays = append(u.Relays, r)
		case "pin":
			pin, err := url.PathUnescape(v)
			if err != nil || !strings.HasPrefix(pin, "sha256/") {
				return nil, fmt.Errorf("%w: pin must be sha256/<base64>", ErrBadURI)
			}
			u.Pin = pin
		}
	}
	if !seen["secret"] {
		return nil, fmt.Errorf("%w: no secret", ErrBadURI)
	}
	if len(u.Relays) == 0 {
		return nil, fmt.Errorf("%w: no relay", ErrBadURI)
	}
	return u, nil
}

func checkRelayURL(r string) error {
	p, err := url.Parse(r)
	if err != nil {
		return fmt.Errorf("relay %q: %v", r, err)
	}
	if p.Scheme != "ws" && p.Scheme != "wss" {
		return fmt.Errorf("relay %q: want a ws:// or wss:// URL", r)
	}
	if p.Host == "" || p.Hostname() == "" {
		return fmt.Errorf("relay %q has no host", r)
	}
	return nil
}

// escapeAll percent-encodes every byte except ASCII letters and digits.
func escapeAll(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}
