// Package endpoint is the hub's pairing relay: a tiny, unauthenticated,
// memory-only NIP-01 relay that carries NIP-AB kind 24134 events between two
// devices' throwaway keys. It stores nothing: an event is delivered to the one
// live subscriber of its p tag, or refused. Every limit is in Limits.
package endpoint

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/ainb/hive/relay"
	"github.com/gorilla/websocket"
)

// Server is the pairing endpoint, an http.Handler to mount on its own path.
type Server struct {
	lim      Limits
	log      *slog.Logger
	now      func() time.Time
	upgrader websocket.Upgrader

	mu        sync.Mutex
	conns     map[*conn]struct{}
	perIP     map[string]int       // connection slots held per remote address
	reserved  int                  // connection slots held in total
	subs      map[string]*conn     // p value -> its one live subscriber
	seen      map[string]time.Time // event ids reserved or delivered
	delivered map[string]*quota    // p value -> deliveries so far
	byAddr    map[string]*quota    // source address -> deliveries it sent or received since last
	closed    bool

	// members' connections (see Members): they hold no unauthenticated slot.
	authURLs    []string
	isMember    func(pubkey string) bool
	memberConns int
}

// quota counts deliveries: to a p (last is the latest), or of an address
// (last is when its window started).
type quota struct {
	n    int
	last time.Time
}

// New returns a pairing endpoint with lim (zero fields take defaults).
func New(lim Limits, log *slog.Logger) *Server {
	lim.defaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{lim: lim, log: log, now: time.Now,
		conns: map[*conn]struct{}{}, perIP: map[string]int{}, subs: map[string]*conn{},
		seen: map[string]time.Time{}, delivered: map[string]*quota{}, byAddr: map[string]*quota{}}
	s.upgrader = websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 1024,
		CheckOrigin: func(*http.Request) bool { return true }}
	return s
}

// Limits returns the limits in force.
func (s *Server) Limits() Limits { return s.lim }

// ServeHTTP upgrades to a websocket and runs the connection until it ends.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		http.Error(w, "hive pairing endpoint: connect with a websocket (NIP-AB, kind 24134)", http.StatusBadRequest)
		return
	}
	ip := relay.AddrKey(r.RemoteAddr)
	if msg := s.admit(ip); msg != "" {
		http.Error(w, msg, http.StatusServiceUnavailable)
		return
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		s.release(nil, ip)
		return
	}
	c := newConn(s, ws, ip)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.release(nil, ip)
		ws.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	c.run()
	s.release(c, ip)
}

// admit reserves a connection slot, or says why there is none.
func (s *Server) admit(ip string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return "shutting down"
	case s.reserved >= s.lim.MaxConns:
		return "rate-limited: the pairing endpoint is at capacity; try again shortly"
	case s.perIP[ip] >= s.lim.MaxConnsPerIP:
		return "rate-limited: too many pairing connections from your address"
	}
	s.perIP[ip]++
	s.reserved++
	return ""
}

// release frees a connection's slot and its subscription.
func (s *Server) release(c *conn, ip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c != nil && c.member != "" {
		s.memberConns--
	} else {
		s.unreserve(ip)
	}
	if c != nil {
		delete(s.conns, c)
		if c.p != "" && s.subs[c.p] == c {
			delete(s.subs, c.p)
		}
	}
}

// unreserve frees an unauthenticated slot of ip. Called with s.mu held.
func (s *Server) unreserve(ip string) {
	s.reserved--
	if s.perIP[ip]--; s.perIP[ip] <= 0 {
		delete(s.perIP, ip)
	}
}

// Close ends every connection and refuses new ones.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	cs := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
}

// subscribe makes c the live subscriber of p under subID (dropping its
// previous p).
func (s *Server) subscribe(c *conn, subID, p string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if other, ok := s.subs[p]; ok && other != c {
		return "duplicate: this #p already has a live subscriber"
	}
	if c.p != "" && s.subs[c.p] == c {
		delete(s.subs, c.p)
	}
	c.p, c.subID = p, subID
	s.subs[p] = c
	return ""
}

// unsubscribe drops c's subscription.
func (s *Server) unsubscribe(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.p != "" && s.subs[c.p] == c {
		delete(s.subs, c.p)
	}
	c.p, c.subID = "", ""
}

// listening reports whether p has a live subscriber.
func (s *Server) listening(p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs[p] != nil
}

// deliver hands an accepted event from the connection src to the one live
// subscriber of p. It returns the OK message ("" for success).
func (s *Server) deliver(id, p string, src *conn, frame func(subID string) []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	now, from := s.now(), src.ip
	if sub := s.subs[p]; sub != nil && (src.member != "" || sub.member != "") {
		return s.deliverMember(src, sub, id, frame(sub.subID))
	}
	if _, dup := s.seen[id]; dup {
		return "duplicate: already seen"
	}
	if len(s.seen) >= s.lim.SeenCap || len(s.delivered) >= s.lim.SeenCap {
		s.prune(now)
		if len(s.seen) >= s.lim.SeenCap || len(s.delivered) >= s.lim.SeenCap {
			return "rate-limited: the pairing endpoint is at capacity; try again shortly"
		}
	}
	sub := s.subs[p]
	if sub == nil {
		return "error: no live subscriber for this p; the other device is not listening (yet), retry"
	}
	q := s.delivered[p]
	if q == nil {
		q = &quota{}
		s.delivered[p] = q
	}
	if q.n >= s.lim.DeliveriesPerP {
		return "rate-limited: too many events for this recipient"
	}
	if msg := s.addrSpent(now, from, "your address"); msg != "" {
		return msg
	}
	if msg := s.addrSpent(now, sub.ip, "the recipient's address"); msg != "" {
		return msg
	}
	if !sub.send(frame(sub.subID)) {
		return "error: the recipient's connection is gone; retry"
	}
	q.n++
	q.last = now
	s.seen[id] = now
	s.charge(now, from)
	if sub.ip != from {
		s.charge(now, sub.ip)
	}
	return ""
}

// addrSpent says why addr may have no more deliveries in its window, or "".
// Called with s.mu held.
func (s *Server) addrSpent(now time.Time, addr, who string) string {
	q := s.byAddr[addr]
	if q == nil || now.Sub(q.last) > s.lim.SeenTTL || q.n < s.lim.AddrEvents {
		return ""
	}
	wait := s.lim.SeenTTL - now.Sub(q.last)
	return fmt.Sprintf("rate-limited: %s has used its %d pairing events for %d s; try again in %d s",
		who, s.lim.AddrEvents, int(s.lim.SeenTTL/time.Second), int(wait/time.Second)+1)
}

// charge counts one delivery against addr's window. Called with s.mu held.
func (s *Server) charge(now time.Time, addr string) {
	q := s.byAddr[addr]
	if q == nil || now.Sub(q.last) > s.lim.SeenTTL {
		q = &quota{last: now}
		s.byAddr[addr] = q
	}
	q.n++
}

// prune forgets ids and quotas older than SeenTTL. Called with s.mu held.
func (s *Server) prune(now time.Time) {
	for id, t := range s.seen {
		if now.Sub(t) > s.lim.SeenTTL {
			delete(s.seen, id)
		}
	}
	for _, m := range []map[string]*quota{s.delivered, s.byAddr} {
		for k, q := range m {
			if now.Sub(q.last) > s.lim.SeenTTL {
				delete(m, k)
			}
		}
	}
}
