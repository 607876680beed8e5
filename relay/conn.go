package relay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// Conn is one client connection. Its reads (reader.go) go to a bounded queue
// that a worker goroutine handles in order, and outbound frames to a queue
// that the relay's writers drain (writer.go). The reader and the worker
// exist only while they have something to do, so an idle connection costs
// one goroutine with a small stack, waiting for the socket.
type Conn struct {
	relay     *Relay
	raw       net.Conn        // the socket, after the websocket upgrade
	sock      syscall.RawConn // raw's socket for writes that do not wait; nil over TLS (writer.go)
	challenge string
	remote    string // for logs: the peer, or what X-Forwarded-For says
	addr      string // the TCP peer's address: the key of per-address caps
	since     time.Time
	ctx       context.Context
	cancel    context.CancelFunc

	inflight chan struct{} // one token per EVENT awaiting commit
	queued   chan struct{} // one token per message read and not yet handled

	mu      sync.Mutex
	id      ident  // who the connection is
	refusal string // why admission refused this connection's last AUTH, until one succeeds
	// NIP-43 guests (guest.go): a key admission refused but let stay to ask to join.
	guestable bool         // an Admit hook allows the AUTH being admitted to become a guest
	guestAuth *nostr.Event // the guest's AUTH event, admitted again when a join succeeds
	member    *member      // whose budget the connection counts against, from AUTH on
	in        [][]byte
	working   bool
	out       []outFrame // complete frames waiting for a writer (writer.go)
	outBytes  int        // bytes in out and not yet taken by the socket
	writing   bool       // a writer owns the socket's write side
	midFrame  bool       // a partly written frame is waiting for the rest
	progress  time.Time  // when the socket last took bytes, or the queue filled
	room      sync.Cond  // signalled when the queue shrinks or the connection closes
	closed    bool
	dropping  bool
	subs      []*subscription // the open REQs, at most MaxSubscriptions: found by id in a scan

	// The fan-out goroutine's: the round that last gave c frames, and where
	// they are in it (fanjoin.go).
	joinRound uint64
	joinSlot  int

	// Before AUTH (see budget.go).
	slot      bool        // holds an unauthenticated-connection slot; guarded by mu
	authTimer *time.Timer // closes the connection at AuthTimeout
	tokens    float64     // messages left in the budget; reader goroutine only
	refilled  time.Time
}

func newConn(r *Relay, raw net.Conn, req *http.Request, addr string) *Conn {
	var b [16]byte
	rand.Read(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		relay:     r,
		raw:       raw,
		sock:      rawSocket(raw),
		challenge: hex.EncodeToString(b[:]),
		since:     time.Now(),
		remote:    remoteAddr(req),
		addr:      addr,
		ctx:       ctx,
		cancel:    cancel,
		inflight:  make(chan struct{}, r.cfg.MaxInflight),
		queued:    make(chan struct{}, r.cfg.MaxQueued),
	}
	c.room.L = &c.mu
	c.startUnauth()
	return c
}

func remoteAddr(req *http.Request) string {
	if f := req.Header.Get("X-Forwarded-For"); f != "" {
		return f
	}
	return req.RemoteAddr
}

// ident is who a connection is, guarded by Conn.mu: the key it
// authenticated as, with what admission attached, or the key it stays as a
// NIP-43 guest (guest.go).
type ident struct {
	pubkey string // NIP-42 authenticated pubkey
	owner  string // for an attested agent or device: its owner
	meta   any    // policy data attached at AUTH (e.g. the attestation)
	guest  string // a guest's key, "" when the connection has none (then pubkey is "")
}

// who reads the connection's identity under its lock; every getter of it
// goes through here.
func (c *Conn) who() ident {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id
}

// PubKey is the NIP-42 authenticated pubkey, or "" before AUTH.
func (c *Conn) PubKey() string { return c.who().pubkey }

// Owner is the member an authenticated agent or device acts for ("" for a member).
func (c *Conn) Owner() string { return c.who().owner }

// Meta returns what SetMeta attached.
func (c *Conn) Meta() any { return c.who().meta }

// Identity is PubKey and Meta under one lock: what a read rule judges a
// connection by.
func (c *Conn) Identity() (pubkey string, meta any) {
	id := c.who()
	return id.pubkey, id.meta
}

// SetOwner records, during Admit, that the authenticating key is an agent of owner.
func (c *Conn) SetOwner(owner string) {
	c.mu.Lock()
	c.id.owner = strings.Clone(owner) // kept for the connection's life: not a view of a message
	c.mu.Unlock()
}

// SetMeta attaches policy data to the connection (done during Admit).
func (c *Conn) SetMeta(v any) {
	c.mu.Lock()
	c.id.meta = v
	c.mu.Unlock()
}

// Challenge is this connection's NIP-42 challenge.
func (c *Conn) Challenge() string { return c.challenge }

// RemoteAddr is the client's address, for logs.
func (c *Conn) RemoteAddr() string { return c.remote }

// Context is cancelled when the connection closes.
func (c *Conn) Context() context.Context { return c.ctx }

// work handles queued messages in order and exits when the queue is empty.
func (c *Conn) work() {
	for {
		c.mu.Lock()
		if len(c.in) == 0 || c.closed {
			c.working = false
			c.in = nil
			c.mu.Unlock()
			return
		}
		msg := c.in[0]
		c.in[0] = nil
		c.in = c.in[1:]
		c.mu.Unlock()
		c.handle(msg)
		<-c.queued
	}
}

// shutdown closes the connection once, with reason (if any) in the close frame.
func (c *Conn) shutdown(reason string) {
	code := websocket.CloseNormalClosure
	if reason != "" {
		code = websocket.ClosePolicyViolation
	}
	c.close(code, reason, false)
}

// close closes the connection once, with code and reason in the close frame.
// unread says the client is still sending: the hub then stops writing and
// reads (and drops) a little more before it closes, so that the client gets
// the close frame rather than a TCP reset.
func (c *Conn) close(code int, reason string, unread bool) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.out = nil
	mid := c.midFrame
	c.mu.Unlock()
	c.room.Broadcast()
	c.cancel()
	if !mid { // else the client is not reading, and a close frame would land inside another
		c.raw.SetWriteDeadline(time.Now().Add(time.Second))
		c.raw.Write(frame(opClose, websocket.FormatCloseMessage(code, truncate(reason, 120))))
	}
	if tc, ok := c.raw.(interface{ CloseWrite() error }); ok && unread {
		tc.CloseWrite()
		c.raw.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		io.Copy(io.Discard, io.LimitReader(c.raw, lingerBytes))
	}
	c.raw.Close()
	c.relay.forget(c)
}

// lingerBytes is how much a closing connection reads and drops so its client
// sees the close frame.
const lingerBytes = 64 << 10

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
