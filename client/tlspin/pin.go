// Package tlspin is hive's certificate pinning: the SHA-256 SPKI pin of a
// certificate (`sha256/<base64>`), a client TLS configuration that checks the
// pin instead of a CA chain, and the hub's self-signed certificate kept in its
// data directory. The hub (hive serve), the client and pairing share it.
package tlspin

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Prefix starts every pin.
const Prefix = "sha256/"

// ErrBadPin is wrapped by Parse's errors.
var ErrBadPin = errors.New("malformed TLS pin")

// MismatchError is the error of a TLS handshake whose certificate does not
// carry the pinned key. errors.As finds it in a failed dial's error.
type MismatchError struct {
	Want string // the pin the client holds
	Got  string // the pin of the certificate the server presented
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("TLS pin mismatch: the hub presented %s but this profile pins %s "+
		"(someone may be in the middle, or the hub's key was replaced: compare with `hive status --data DIR` on the hub machine)", e.Got, e.Want)
}

// FromCert returns the pin of a certificate: SHA-256 over its DER
// SubjectPublicKeyInfo, base64 (standard, padded) after "sha256/".
func FromCert(c *x509.Certificate) string {
	return FromSPKI(c.RawSubjectPublicKeyInfo)
}

// FromSPKI returns the pin of a DER-encoded SubjectPublicKeyInfo.
func FromSPKI(spki []byte) string {
	sum := sha256.Sum256(spki)
	return Prefix + base64.StdEncoding.EncodeToString(sum[:])
}

// FromPublicKey returns the pin of a public key (as held by a certificate).
func FromPublicKey(pub any) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	return FromSPKI(der), nil
}

// Parse checks that s is a pin and returns it in canonical form. It accepts
// the base64 with or without the "sha256/" prefix.
func Parse(s string) (string, error) {
	s = strings.TrimSpace(s)
	b64 := strings.TrimPrefix(s, Prefix)
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != sha256.Size {
		return "", fmt.Errorf("%w %q: want sha256/ followed by the base64 of 32 bytes, as printed by `hive serve --tls self-signed`", ErrBadPin, s)
	}
	return Prefix + base64.StdEncoding.EncodeToString(raw), nil
}

// ClientConfig returns a TLS configuration that accepts exactly the servers
// whose leaf certificate carries the pinned key, whatever signed it and
// whatever names it holds. An empty pin returns nil: the system's CA roots and
// host name checks apply.
func ClientConfig(pin string) (*tls.Config, error) {
	if pin == "" {
		return nil, nil
	}
	want, err := Parse(pin)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The chain is replaced by the pin, checked in VerifyConnection.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("TLS: the hub sent no certificate")
			}
			if got := FromCert(cs.PeerCertificates[0]); got != want {
				return &MismatchError{Want: want, Got: got}
			}
			return nil
		},
	}, nil
}
