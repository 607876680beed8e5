package endpoint

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/relay"
	"github.com/nbd-wtf/go-nostr"
)

// authKind is NIP-42's client authentication kind.
const authKind = 22242

// Members lets the hub's members authenticate on the endpoint (NIP-42), so
// that the pairing sessions they start (`hive pair`) never share a budget
// with strangers' traffic. urls are the endpoint's public URLs (an AUTH
// event's relay tag must name one); isMember says whether a key is a member
// of the hub. Call it before serving.
func (s *Server) Members(urls []string, isMember func(pubkey string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.authURLs = nil
	for _, u := range urls {
		if n, ok := relay.NormalizeURL(u); ok {
			s.authURLs = append(s.authURLs, n)
		}
	}
	s.isMember = isMember
}

func newChallenge() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// handleAuth answers a NIP-42 AUTH: the cheap checks first, the signature
// only for an event that answers this connection's challenge for this
// endpoint, in time, from a key the hub lists as a member.
func (c *conn) handleAuth(arr []json.RawMessage) {
	var ev nostr.Event
	if len(arr) != 2 || json.Unmarshal(arr[1], &ev) != nil {
		c.notice("invalid: AUTH takes one kind %d event", authKind)
		return
	}
	ok := func(msg string) { c.reply("OK", ev.ID, msg == "", msg) }
	c.s.mu.Lock()
	isMember, urls, cur := c.s.isMember, c.s.authURLs, c.member
	c.s.mu.Unlock()
	switch {
	case isMember == nil:
		ok("restricted: this pairing endpoint does not authenticate members")
		return
	case cur != "":
		ok("restricted: this connection is already authenticated; open a new connection")
		return
	case c.verified >= c.s.lim.EventsPerConn:
		ok(fmt.Sprintf("error: session event limit reached (%d events per connection)", c.s.lim.EventsPerConn))
		return
	}
	if why := c.checkAuthEvent(&ev, urls); why != "" {
		ok(why)
		return
	}
	if !isMember(ev.PubKey) {
		ok("restricted: only a member of this hub authenticates on its pairing endpoint; pair without AUTH, or from a member's profile")
		return
	}
	c.verified++
	if why := verify(&ev); why != "" {
		ok(why)
		return
	}
	ok(c.s.promote(c, ev.PubKey))
}

// checkAuthEvent applies NIP-42's rules to an AUTH event for this
// connection, short of its signature.
func (c *conn) checkAuthEvent(ev *nostr.Event, urls []string) string {
	if ev.Kind != authKind {
		return fmt.Sprintf("invalid: AUTH needs a kind %d event, got kind %d", authKind, ev.Kind)
	}
	if !lowerHex(ev.ID, 64) || !lowerHex(ev.PubKey, 64) || !lowerHex(ev.Sig, 128) {
		return "invalid: id and pubkey must be 64 and sig 128 lowercase hex characters"
	}
	var challenges, relays []string
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "challenge" {
			challenges = append(challenges, t[1])
		}
		if len(t) >= 2 && t[0] == "relay" {
			relays = append(relays, t[1])
		}
	}
	if len(challenges) != 1 || challenges[0] != c.challenge {
		return "invalid: AUTH needs exactly one challenge tag, this connection's challenge"
	}
	n, _ := relay.NormalizeURL(strings.Join(relays, " "))
	known := false
	for _, u := range urls {
		known = known || (len(relays) == 1 && n == u)
	}
	if !known {
		return "invalid: AUTH needs exactly one relay tag, this pairing endpoint's URL (" + strings.Join(urls, ", ") + ")"
	}
	if d := c.s.now().Sub(ev.CreatedAt.Time()); d > c.s.lim.Freshness || d < -c.s.lim.Freshness {
		return fmt.Sprintf("invalid: AUTH created_at must be within %d s of now", int(c.s.lim.Freshness/time.Second))
	}
	return ""
}

// promote makes c a member's connection: its slot leaves the
// unauthenticated ones (and its address's), and the session it listens for
// is a member's session from now on.
func (s *Server) promote(c *conn, pubkey string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memberConns >= s.lim.MaxConns {
		return "rate-limited: the pairing endpoint has as many members' connections as it takes; try again shortly"
	}
	c.member = pubkey
	s.memberConns++
	s.unreserve(c.ip)
	return ""
}

// deliverMember hands an event to which a member's session is a party:
// sent by a member's connection, or sent to one. It is bounded by the
// sessions' own budgets (the sender's events per connection, the member
// session's deliveries), never by the addresses' budgets or the seen set
// that unauthenticated sessions share. Called with s.mu held.
func (s *Server) deliverMember(from, sub *conn, id string, frame []byte) string {
	if sub.member != "" {
		if _, dup := sub.got[id]; dup {
			return "duplicate: already seen"
		}
		if len(sub.got) >= s.lim.DeliveriesPerP {
			return "rate-limited: too many events for this recipient"
		}
	}
	if !sub.send(frame) {
		return "error: the recipient's connection is gone; retry"
	}
	if sub.member != "" {
		if sub.got == nil {
			sub.got = map[string]struct{}{}
		}
		sub.got[id] = struct{}{}
	}
	return ""
}
