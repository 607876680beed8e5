package relay

import (
	"fmt"
	"net/http"
	"time"
)

// What a connection that has not authenticated may cost (with RequireAuth):
// a slot counted against MaxUnauthConns and MaxUnauthPerAddr, messages of at
// most MaxUnauthMessageBytes handled one at a time by its reader (nothing
// queued), at most UnauthBurst of them at once and UnauthRate per second
// after that, and AuthTimeout to authenticate. Nothing it sends before AUTH
// has its signature checked except the AUTH event itself.

// unauthSlots counts connections that have not authenticated, in all and per
// source address. Guarded by Relay.mu.
type unauthSlots struct {
	total  int
	byAddr map[string]int
}

// sourceAddr is the address a connection's TCP peer has: the key of the
// per-address cap (AddrKey).
func sourceAddr(req *http.Request) string { return AddrKey(req.RemoteAddr) }

// takeUnauthSlot reserves a slot for a new connection from addr, or returns
// why there is none.
func (r *Relay) takeUnauthSlot(addr string) string {
	if !r.cfg.RequireAuth {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.unauth.total >= r.cfg.MaxUnauthConns {
		return fmt.Sprintf("rate-limited: %d connections are waiting to authenticate (max_unauth_connections); try again later", r.unauth.total)
	}
	if r.unauth.byAddr[addr] >= r.cfg.MaxUnauthPerAddr {
		return fmt.Sprintf("rate-limited: %d unauthenticated connections from your address (max_unauth_connections_per_ip); authenticate or close them first", r.cfg.MaxUnauthPerAddr)
	}
	r.unauth.total++
	r.unauth.byAddr[addr]++
	return ""
}

// releaseUnauthSlot gives back a slot taken by takeUnauthSlot.
func (r *Relay) releaseUnauthSlot(addr string, held bool) {
	if !held {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unauth.total--
	if r.unauth.byAddr[addr]--; r.unauth.byAddr[addr] <= 0 {
		delete(r.unauth.byAddr, addr)
	}
}

// startUnauth arms the auth timeout of a new connection holding a slot.
func (c *Conn) startUnauth() {
	if !c.relay.cfg.RequireAuth {
		return
	}
	c.slot = true
	c.tokens = float64(c.relay.cfg.UnauthBurst)
	c.refilled = time.Now()
	d := c.relay.cfg.AuthTimeout
	c.authTimer = time.AfterFunc(d, func() {
		switch {
		case c.Guest() != "": // NIP-43 (guest.go): authenticated, never admitted
			c.shutdown(fmt.Sprintf("restricted: not admitted within %s of connecting; a key that is not a member may only join with an invite", d))
		case c.PubKey() == "":
			c.shutdown(fmt.Sprintf("auth-required: no AUTH within %s", d))
		}
	})
}

// leaveUnauth releases the connection's slot and stops its auth timeout, once:
// at AUTH or when it closes.
func (c *Conn) leaveUnauth() {
	c.mu.Lock()
	held := c.slot
	c.slot = false
	t := c.authTimer
	c.authTimer = nil
	c.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	c.relay.releaseUnauthSlot(c.addr, held)
}

// spendUnauthToken takes one message from an unauthenticated connection's
// budget; false means the budget is spent. Reader goroutine only.
func (c *Conn) spendUnauthToken() bool {
	cfg := &c.relay.cfg
	now := time.Now()
	c.tokens += now.Sub(c.refilled).Seconds() * cfg.UnauthRate
	c.refilled = now
	if max := float64(cfg.UnauthBurst); c.tokens > max {
		c.tokens = max
	}
	if c.tokens < 1 {
		return false
	}
	c.tokens--
	return true
}
