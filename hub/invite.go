package hub

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/nbd-wtf/go-nostr"
)

// NIP-43 invites (spec/auth.md, "Invites (NIP-43)"). A claim is a token the
// hub signs with its own key: who issued it (a member), until when it holds
// and how many keys it may admit. Nothing is stored when one is made; a key
// it admits is a hub-signed 8000 carrying the claim's id and limit
// (join.go), so the log counts its uses and a replay counts them again.

// InviteMode says who may make invites: "members", "admins" (the default)
// or "off".
type InviteMode string

// The invite modes of `hive serve --invites`.
const (
	InvitesMembers InviteMode = "members"
	InvitesAdmins  InviteMode = "admins"
	InvitesOff     InviteMode = "off"
)

const (
	claimVersion    = 1
	claimPayloadLen = 1 + 32 + 8 + 2 + 8 // version, issuer, expires, uses, nonce
	claimLen        = claimPayloadLen + 64
	claimDomain     = "hive invite claim v1\n"
	// DefaultInviteUses and DefaultInviteLifetime apply when a REQ for
	// 28935 names neither.
	DefaultInviteUses     = 1
	DefaultInviteLifetime = 7 * 24 * time.Hour
	maxInviteUses         = 1000
	maxInviteLifetime     = 365 * 24 * time.Hour
)

// claim is a parsed invite claim.
type claim struct {
	id      string // hex of its nonce
	issuer  string
	expires int64
	uses    int
}

func claimHash(payload []byte) []byte {
	h := sha256.Sum256(append([]byte(claimDomain), payload...))
	return h[:]
}

// makeClaim signs a claim for issuer with the hub's key.
func (h *Hub) makeClaim(issuer string, uses int, expires int64) (string, claim, error) {
	pk, err := hex.DecodeString(issuer)
	if err != nil || len(pk) != 32 {
		return "", claim{}, fmt.Errorf("issuer %q is not a hex pubkey", issuer)
	}
	b := make([]byte, claimPayloadLen, claimLen)
	b[0] = claimVersion
	copy(b[1:33], pk)
	binary.BigEndian.PutUint64(b[33:41], uint64(expires))
	binary.BigEndian.PutUint16(b[41:43], uint16(uses))
	if _, err := rand.Read(b[43:51]); err != nil {
		return "", claim{}, err
	}
	sk, err := hex.DecodeString(h.keys.SecretHex)
	if err != nil {
		return "", claim{}, err
	}
	priv, _ := btcec.PrivKeyFromBytes(sk)
	sig, err := schnorr.Sign(priv, claimHash(b))
	if err != nil {
		return "", claim{}, err
	}
	b = append(b, sig.Serialize()...)
	return base64.RawURLEncoding.EncodeToString(b), claim{id: hex.EncodeToString(b[43:51]), issuer: issuer, expires: expires, uses: uses}, nil
}

var errForged = errors.New("restricted: that is not a valid invite code for this hub")

// parseClaim checks a claim's signature by the hub's key.
func (h *Hub) parseClaim(s string) (claim, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != claimLen || b[0] != claimVersion {
		return claim{}, errForged
	}
	pub, err := hex.DecodeString(h.keys.PublicHex)
	if err != nil {
		return claim{}, err
	}
	key, err := schnorr.ParsePubKey(pub)
	if err != nil {
		return claim{}, err
	}
	sig, err := schnorr.ParseSignature(b[claimPayloadLen:])
	if err != nil || !sig.Verify(claimHash(b[:claimPayloadLen]), key) {
		return claim{}, errForged
	}
	return claim{
		id:      hex.EncodeToString(b[43:51]),
		issuer:  hex.EncodeToString(b[1:33]),
		expires: int64(binary.BigEndian.Uint64(b[33:41])),
		uses:    int(binary.BigEndian.Uint16(b[41:43])),
	}, nil
}

// mayInvite says why pk (a member's key, as it acts) may not make or stand
// behind invites now, or "".
func (h *Hub) mayInvite(v *view, pk string) string {
	r, member := v.members[pk]
	switch {
	case h.invites == InvitesOff:
		return "restricted: this hub takes no invites (hive serve --invites off); ask a hub admin to add you"
	case !member:
		return "restricted: only hub members make invites"
	case h.invites == InvitesAdmins && r != roleAdmin:
		return "restricted: only hub admins make invites on this hub (hive serve --invites admins)"
	}
	return ""
}

// invite answers a REQ for kind 28935: a fresh claim issued by the member
// the connection acts as. `#u` sets its uses, `#x` its lifetime in seconds.
func (h *Hub) invite(_ context.Context, c *relay.Conn, f nostr.Filter) (*nostr.Event, string) {
	v := h.snapshotView()
	issuer, _ := actsAs(v, c.PubKey(), h.now().Unix())
	if c.Owner() != "" && issuer == c.PubKey() {
		return nil, "restricted: agents do not make invites; their owner does"
	}
	if why := h.mayInvite(v, issuer); why != "" {
		return nil, why
	}
	uses, err := filterNumber(f, "u", DefaultInviteUses, maxInviteUses)
	if err != nil {
		return nil, "invalid: #u (the invite's uses): " + err.Error()
	}
	life, err := filterNumber(f, "x", int(DefaultInviteLifetime.Seconds()), int(maxInviteLifetime.Seconds()))
	if err != nil {
		return nil, "invalid: #x (the invite's lifetime in seconds): " + err.Error()
	}
	now := h.now().Unix()
	code, cl, err := h.makeClaim(issuer, uses, now+int64(life))
	if err != nil {
		return nil, "error: " + err.Error()
	}
	ev, err := h.sign(kinds.RelayInvite, "", nostr.Tags{{"-"}, {"claim", code},
		{"u", strconv.Itoa(cl.uses)}, {"x", strconv.Itoa(life)}, {"expiration", strconv.FormatInt(cl.expires, 10)}}, now)
	if err != nil {
		return nil, "error: " + err.Error()
	}
	h.log.Info("invite made", "issuer", issuer, "claim", cl.id, "uses", cl.uses, "expires", time.Unix(cl.expires, 0).UTC())
	return ev, ""
}

// filterNumber reads a filter's single-letter tag as a number in 1..max.
func filterNumber(f nostr.Filter, tag string, def, max int) (int, error) {
	vs := f.Tags[tag]
	if len(vs) == 0 {
		return def, nil
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil || len(vs) > 1 || n < 1 || n > max {
		return 0, fmt.Errorf("want one whole number from 1 to %d, got %q", max, vs)
	}
	return n, nil
}
