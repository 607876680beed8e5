package relay

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// handleAuth checks a NIP-42 AUTH event against this connection and the hub's
// public URLs, then asks the Admit hooks whether the key may use the hub.
// A refused AUTH leaves the connection as it was, authenticated or not; a
// key that admission refuses is remembered (see notAuthed).
func (c *Conn) handleAuth(ev *nostr.Event) {
	r := c.relay
	// The cheap checks first: a signature is verified only for an AUTH event
	// that answers this connection's challenge for this hub, in time.
	if msg := r.checkAuthEvent(ev, c.challenge, time.Now()); msg != "" {
		c.reply(okMsg(ev.ID, false, msg))
		return
	}
	if msg := r.validate(ev); msg != "" {
		c.reply(okMsg(ev.ID, false, msg))
		return
	}
	if cur := c.PubKey(); cur != "" {
		if cur == ev.PubKey {
			c.reply(okMsg(ev.ID, true, ""))
		} else {
			c.reply(okMsg(ev.ID, false, "restricted: this connection is already authenticated as another key; open a new connection"))
		}
		return
	}
	// The key is the connection's before the Admit hooks judge it, so a
	// cut-off that commits while they run (a revocation, a removal) finds the
	// connection by its key: either the hooks see the cut-off or its kick
	// sees the connection.
	c.mu.Lock()
	c.id = ident{pubkey: strings.Clone(ev.PubKey)} // not a view of the whole AUTH message
	c.refusal, c.guestAuth, c.guestable = "", nil, false
	c.mu.Unlock()
	if msg := c.admit(ev); msg != "" {
		if c.asGuest(ev, msg) { // NIP-43: it may ask to join (guest.go)
			r.log.Debug("guest", "pubkey", ev.PubKey, "remote", c.remote)
			c.reply(okMsg(ev.ID, true, msg))
			return
		}
		c.mu.Lock()
		if strings.HasPrefix(msg, "restricted: ") {
			c.refusal = msg
		}
		c.mu.Unlock()
		c.reply(okMsg(ev.ID, false, msg))
		return
	}
	r.log.Debug("authenticated", "pubkey", ev.PubKey, "owner", c.Owner(), "remote", c.remote)
	c.reply(okMsg(ev.ID, true, ""))
}

// admit judges the key c just took from auth (an AUTH, or a guest's AUTH
// again when its join succeeds) by the Admit hooks, then counts c against
// its member's budget. It returns the refusal, or "" once c is
// authenticated and has left the unauthenticated connections' slot.
func (c *Conn) admit(auth *nostr.Event) string {
	for _, fn := range c.relay.Hooks.Admit {
		if msg := fn(c.ctx, c, auth); msg != "" {
			return msg
		}
	}
	if msg := c.relay.joinMember(c); msg != "" {
		return msg
	}
	c.leaveUnauth()
	return ""
}

// notAuthed answers an EVENT, REQ or COUNT (to do: "publishing",
// "reading") that needs AUTH. After admission refused this connection's key,
// it is restricted: with the refusal's reason, so that a client fails at
// once with it instead of waiting to authenticate again, as it does on
// auth-required:.
func (c *Conn) notAuthed(to string) string {
	c.mu.Lock()
	why, guest := c.refusal, c.id.guest != ""
	c.mu.Unlock()
	if why == "" {
		return "auth-required: authenticate with NIP-42 before " + to
	}
	if guest { // authenticated, not admitted: the admission's reason as it is
		return why
	}
	return "restricted: AUTH was refused: " + strings.TrimPrefix(why, "restricted: ")
}

// checkAuthEvent applies NIP-42's rules to an AUTH event.
func (r *Relay) checkAuthEvent(ev *nostr.Event, challenge string, now time.Time) string {
	if ev.Kind != kinds.Auth {
		return fmt.Sprintf("invalid: AUTH needs a kind %d event, got kind %d", kinds.Auth, ev.Kind)
	}
	var challenges, relays []string
	for _, t := range ev.Tags {
		if len(t) < 2 {
			continue
		}
		switch t[0] {
		case "challenge":
			challenges = append(challenges, t[1])
		case "relay":
			relays = append(relays, t[1])
		}
	}
	if len(challenges) != 1 {
		return "invalid: AUTH event needs exactly one challenge tag"
	}
	if challenges[0] != challenge {
		return "invalid: AUTH challenge does not match this connection's challenge"
	}
	if len(relays) != 1 {
		return "invalid: AUTH event needs exactly one relay tag"
	}
	if u, err := url.Parse(strings.TrimSpace(relays[0])); err == nil && (u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(relays[0], "#")) {
		return "invalid: AUTH relay tag must be the hub's URL without user info, query or fragment"
	}
	if !r.isPublicURL(relays[0]) {
		return fmt.Sprintf("invalid: AUTH relay tag %q is not this hub's URL (%s)", truncate(relays[0], 100), strings.Join(r.cfg.PublicURLs, ", "))
	}
	skew := now.Sub(ev.CreatedAt.Time())
	if skew > r.cfg.AuthWindow || skew < -r.cfg.AuthWindow {
		return fmt.Sprintf("invalid: AUTH created_at must be within %s of the hub's clock", r.cfg.AuthWindow)
	}
	return ""
}

func (r *Relay) isPublicURL(u string) bool {
	n, ok := NormalizeURL(u)
	if !ok {
		return false
	}
	for _, p := range r.cfg.PublicURLs {
		if q, ok := NormalizeURL(p); ok && q == n {
			return true
		}
	}
	return false
}

// NormalizeURL reduces a relay URL to scheme://host[:port]/path with the scheme
// and host lower-cased, the scheme's default port dropped and no trailing slash.
func NormalizeURL(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "ws" && scheme != "wss" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "ws" && port == "80") || (scheme == "wss" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	if strings.Contains(u.Hostname(), ":") { // IPv6 literal
		host = "[" + strings.ToLower(u.Hostname()) + "]"
		if port != "" {
			host += ":" + port
		}
	}
	return scheme + "://" + host + strings.TrimRight(u.Path, "/"), true
}
