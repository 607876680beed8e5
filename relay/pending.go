package relay

import (
	"net"
	"net/http"
	"sync"
)

// Before the websocket upgrade: a TCP connection the HTTP server has
// accepted and that is not a websocket yet (its TLS handshake, its request
// headers, a keep-alive NIP-11 client) holds a pending slot, counted in all
// (MaxPendingConns) and per source address (MaxPendingPerAddr). Past either
// cap the connection is closed before anything is read from it, so one
// address cannot take the hub's file descriptors; the HTTP server's header
// timeout (HeaderTimeout) bounds how long a slot is held.

// pendingConns counts the pending connections. It has its own lock: the
// HTTP server calls ConnState on every accept.
type pendingConns struct {
	mu     sync.Mutex
	byConn map[net.Conn]string // pending connection -> its address key
	byAddr map[string]int
}

// ConnState is the http.Server hook that applies the pending caps; serve
// the relay with it (and ReadHeaderTimeout = Config().HeaderTimeout).
func (r *Relay) ConnState(c net.Conn, s http.ConnState) {
	p := &r.pending
	switch s {
	case http.StateNew:
		addr := AddrKey(c.RemoteAddr().String())
		p.mu.Lock()
		full := len(p.byConn) >= r.cfg.MaxPendingConns || p.byAddr[addr] >= r.cfg.MaxPendingPerAddr
		if !full {
			p.byConn[c] = addr
			p.byAddr[addr]++
		}
		p.mu.Unlock()
		if full {
			c.Close()
		}
	case http.StateHijacked, http.StateClosed:
		p.mu.Lock()
		if addr, ok := p.byConn[c]; ok {
			delete(p.byConn, c)
			if p.byAddr[addr]--; p.byAddr[addr] <= 0 {
				delete(p.byAddr, addr)
			}
		}
		p.mu.Unlock()
	}
}

// Pending returns the number of connections not yet upgraded.
func (r *Relay) Pending() int {
	r.pending.mu.Lock()
	defer r.pending.mu.Unlock()
	return len(r.pending.byConn)
}
