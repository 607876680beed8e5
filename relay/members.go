package relay

import (
	"fmt"
	"sync"
)

// What one member may cost the hub, over all its connections and those of
// the agents and devices it attested (they count as the member: the owner
// the Admit hooks record, else the key):
//   - MaxConnsPerMember authenticated connections; the next AUTH is refused
//     with rate-limited:;
//   - MaxMemberQueued outbound bytes queued on them: a connection's own
//     answers (stored events, OK, EOSE) wait while the member's connections
//     hold that much, and a live event past twice that drops the connection
//     it was for as a slow consumer;
//   - MaxMemberReads pages of stored events read from the log and being
//     sent at once (a page is up to 100 events); the member's other REQs
//     wait their turn.
// With the per-connection limits (MaxOutboundBytes, pageRows) this bounds
// the memory a member's readers take, however many filters they send.

// member is what one member's connections share.
type member struct {
	key   string
	conns int // guarded by memberSet.mu

	mu     sync.Mutex
	cond   sync.Cond // signalled when queued shrinks, a read ends or a connection leaves
	queued int       // outbound bytes queued on its connections
	reads  int       // stored pages being read and sent
}

// memberSet holds the members with an authenticated connection.
type memberSet struct {
	mu sync.Mutex
	m  map[string]*member
}

// memberKey is who c counts as: the owner of an agent or device, else its key.
func (c *Conn) memberKey() string {
	id := c.who()
	if id.owner != "" {
		return id.owner
	}
	return id.pubkey
}

// joinMember counts c, just authenticated, against its member's budget, or
// says why it may not join.
func (r *Relay) joinMember(c *Conn) string {
	key := c.memberKey()
	s := &r.members
	s.mu.Lock()
	m := s.m[key]
	if m == nil {
		m = &member{key: key}
		m.cond.L = &m.mu
		s.m[key] = m
	}
	if m.conns >= r.cfg.MaxConnsPerMember {
		s.mu.Unlock()
		return fmt.Sprintf("rate-limited: %d connections of this member (its agents' and devices' included) are open (max_connections_per_member); close some first", m.conns)
	}
	m.conns++
	s.mu.Unlock()
	c.mu.Lock()
	closed := c.closed
	if !closed {
		c.member = m
		m.add(c.outBytes)
	}
	c.mu.Unlock()
	if closed {
		r.dropMember(m) // it closed meanwhile and will not leave
	}
	return ""
}

// leaveMember gives back what c held of its member's budget; called once,
// when c closes.
func (r *Relay) leaveMember(c *Conn) {
	c.mu.Lock()
	m, q := c.member, c.outBytes
	c.outBytes = 0
	c.mu.Unlock()
	if m == nil {
		return
	}
	m.add(-q)
	r.dropMember(m)
}

func (r *Relay) dropMember(m *member) {
	s := &r.members
	s.mu.Lock()
	if m.conns--; m.conns <= 0 {
		delete(s.m, m.key)
	}
	s.mu.Unlock()
	m.cond.Broadcast() // waiters of a closed connection look again
}

// add counts n more (or, negative, fewer) queued bytes.
func (m *member) add(n int) {
	if m == nil || n == 0 {
		return
	}
	m.mu.Lock()
	m.queued += n
	m.mu.Unlock()
	if n < 0 {
		m.cond.Broadcast()
	}
}

// over reports whether n more queued bytes would pass limit. m.mu is not held.
func (m *member) over(n, limit int) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.queued+n > limit
}

// memberOf is c's member, nil before AUTH (or on a hub without AUTH).
func (c *Conn) memberOf() *member {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.member
}

// waitMemberRoom waits while c's member has MaxMemberQueued bytes queued
// (a frame goes alone when nothing is), or until c closes.
func (c *Conn) waitMemberRoom(n int) {
	m := c.memberOf()
	if m == nil {
		return
	}
	limit := c.relay.cfg.MaxMemberQueued
	m.mu.Lock()
	for m.queued > 0 && m.queued+n > limit && c.ctx.Err() == nil {
		m.cond.Wait()
	}
	m.mu.Unlock()
}

// startRead waits for one of the member's MaxMemberReads read slots; the
// returned func gives it back. It returns nil if c closed meanwhile.
func (c *Conn) startRead() func() {
	m := c.memberOf()
	if m == nil {
		return func() {}
	}
	max := c.relay.cfg.MaxMemberReads
	m.mu.Lock()
	for m.reads >= max && c.ctx.Err() == nil {
		m.cond.Wait()
	}
	if c.ctx.Err() != nil {
		m.mu.Unlock()
		return nil
	}
	m.reads++
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		m.reads--
		m.mu.Unlock()
		m.cond.Broadcast()
	}
}
