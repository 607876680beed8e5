// Package webhook is what hive knows of a workflow's webhook: its secret
// and hook id, the two signature schemes a delivery may carry (Standard
// Webhooks and GitHub's), the delivery's content as the hub stores it, and
// the hub's one HTTP endpoint for them, POST /hook/<id>
// (spec/workflows.md, "Webhooks").
package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// SecretPrefix starts every secret: Standard Webhooks' spelling.
const SecretPrefix = "whsec_"

// Path is where the hub serves hooks: Path + <hook id>.
const Path = "/hook/"

// NewSecret is a fresh secret: SecretPrefix and the standard base64 of 32
// random bytes. Standard Webhooks signatures use the decoded bytes as the
// HMAC key, GitHub signatures the secret's text as printed.
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
}

// standardKey is the Standard Webhooks HMAC key of a secret: the bytes
// its base64 part decodes to.
func standardKey(secret string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || !strings.HasPrefix(secret, SecretPrefix) || len(b) < 16 {
		return nil, fmt.Errorf("a webhook secret is %s and the base64 of at least 16 bytes", SecretPrefix)
	}
	return b, nil
}

// CheckSecret reports a text that is not a secret, naming what one is.
func CheckSecret(secret string) error {
	_, err := standardKey(secret)
	return err
}

// NewHookID is a fresh hook id: 32 lower-case hex characters.
func NewHookID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// ValidHookID reports whether id is spelled as NewHookID spells them.
func ValidHookID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// URL is the address a sender POSTs to: the hub's public URL with ws://
// made http:// and wss:// https://, its path replaced by Path + id.
func URL(hubURL, id string) (string, error) {
	u, err := url.Parse(hubURL)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	case "http", "https":
	default:
		return "", fmt.Errorf("hub URL %q: want ws:// or wss://", hubURL)
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = Path+id, "", "", ""
	return u.String(), nil
}

// Newer reports whether hook event a supersedes b: the newest per
// workflow address counts, whoever of its channel's owners and admins
// wrote it (a later created_at; at a tie, the lower id, as NIP-01 keeps
// replaceable events).
func Newer(a, b *nostr.Event) bool {
	if a.CreatedAt != b.CreatedAt {
		return a.CreatedAt > b.CreatedAt
	}
	return a.ID < b.ID
}
