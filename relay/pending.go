package relay

import (
	"net"
	"net/http"
	"slices"
	"sync"
)

// Before the websocket upgrade: a TCP connection the HTTP server has
// accepted and that is not a websocket yet (its TLS handshake, its request
// headers, a keep-alive NIP-11 client) holds a pending slot, counted in all
// (MaxPendingConns) and per source address (MaxPendingPerAddr). A
// connection from an address at its cap is closed before anything is read
// from it (by Listener before the HTTP server sees it, when the hub serves
// through one), so one address cannot take the hub's file descriptors. When
// all slots are taken, a new connection takes the slot of the oldest
// pending connection of the address that holds the most, unless its own
// address holds as many: many addresses that each stay under their cap
// cannot lock everyone else out, they only push out each other. The HTTP
// server's header timeout (HeaderTimeout) bounds how long a slot is held.

// pendingConns counts the pending connections. It has its own lock: the
// HTTP server calls ConnState on every accept.
type pendingConns struct {
	mu     sync.Mutex
	byConn map[net.Conn]string   // pending connection -> its address key
	byAddr map[string][]net.Conn // address key -> its pending connections, oldest first
}

// ConnState is the http.Server hook that applies the pending caps; serve
// the relay with it (and ReadHeaderTimeout = Config().HeaderTimeout).
func (r *Relay) ConnState(c net.Conn, s http.ConnState) {
	p := &r.pending
	switch s {
	case http.StateNew:
		addr := AddrKey(c.RemoteAddr().String())
		p.mu.Lock()
		admit, evict := p.admit(addr, r.cfg.MaxPendingConns, r.cfg.MaxPendingPerAddr)
		if admit {
			p.byConn[c] = addr
			p.byAddr[addr] = append(p.byAddr[addr], c)
		}
		p.mu.Unlock()
		if evict != nil {
			evict.Close()
		}
		if !admit {
			c.Close()
		}
	case http.StateHijacked, http.StateClosed:
		p.mu.Lock()
		p.remove(c)
		p.mu.Unlock()
	}
}

// admit decides on a new connection from addr: whether it gets a slot, and
// the pending connection it takes the slot of (already forgotten here; the
// caller closes it). Called with p.mu held.
func (p *pendingConns) admit(addr string, max, perAddr int) (bool, net.Conn) {
	mine := len(p.byAddr[addr])
	if mine >= perAddr {
		return false, nil
	}
	if len(p.byConn) < max {
		return true, nil
	}
	heaviest, most := "", 0
	for a, cs := range p.byAddr {
		if len(cs) > most {
			heaviest, most = a, len(cs)
		}
	}
	if most <= mine {
		return false, nil
	}
	victim := p.byAddr[heaviest][0]
	p.remove(victim)
	return true, victim
}

// atCap reports whether addr holds all the pending slots it may.
func (p *pendingConns) atCap(addr string, perAddr int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byAddr[addr]) >= perAddr
}

// remove forgets c. Called with p.mu held.
func (p *pendingConns) remove(c net.Conn) {
	addr, ok := p.byConn[c]
	if !ok {
		return
	}
	delete(p.byConn, c)
	cs := p.byAddr[addr]
	if i := slices.Index(cs, c); i >= 0 {
		cs = slices.Delete(cs, i, i+1)
	}
	if len(cs) == 0 {
		delete(p.byAddr, addr)
	} else {
		p.byAddr[addr] = cs
	}
}

// Pending returns the number of connections not yet upgraded.
func (r *Relay) Pending() int {
	r.pending.mu.Lock()
	defer r.pending.mu.Unlock()
	return len(r.pending.byConn)
}
