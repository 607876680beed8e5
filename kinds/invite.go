package kinds

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// An invite claim (NIP-43's `claim`, as a hive hub makes them: hub/invite.go)
// is unpadded base64url of version 1, the issuer's key (32 bytes), the
// expiry (8), the uses (2), a nonce (8) and the hub's signature (64). Its
// id, which an invite revocation (kind 30451) names, is the nonce in hex.
const (
	inviteClaimLen     = 1 + 32 + 8 + 2 + 8 + 64
	inviteClaimNonceAt = 1 + 32 + 8 + 2
)

// InviteClaimID is the id of an invite claim (16 hex digits). It checks the
// claim's shape, not its signature (the hub does).
func InviteClaimID(claim string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(claim)
	if err != nil || len(b) != inviteClaimLen || b[0] != 1 {
		return "", fmt.Errorf("%.24q is not an invite claim", claim)
	}
	return hex.EncodeToString(b[inviteClaimNonceAt : inviteClaimNonceAt+8]), nil
}

// IsInviteClaimID reports whether s has the shape of an invite claim's id.
func IsInviteClaimID(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
