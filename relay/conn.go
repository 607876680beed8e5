package relay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Conn is one client connection. Its reader goroutine only reads: messages go
// to a bounded queue that a worker goroutine handles in order, and outbound
// messages to a bounded queue drained by a writer goroutine. Worker and writer
// exist only while they have something to do, so an idle connection costs one
// goroutine with a small stack.
type Conn struct {
	relay     *Relay
	ws        *websocket.Conn
	raw       net.Conn // the socket under ws, for batched data frames
	challenge string
	remote    string // for logs: the peer, or what X-Forwarded-For says
	addr      string // the TCP peer's address: the key of per-address caps
	since     time.Time
	ctx       context.Context
	cancel    context.CancelFunc

	inflight chan struct{} // one token per EVENT awaiting commit
	queued   chan struct{} // one token per message read and not yet handled

	mu       sync.Mutex
	pubkey   string // NIP-42 authenticated pubkey
	owner    string // for an attested agent or device: its owner
	meta     any    // policy data attached at AUTH (e.g. the attestation)
	in       [][]byte
	working  bool
	out      [][]byte
	outBytes int
	writing  bool
	closed   bool
	dropping bool
	subs     map[string]*subscription

	// Before AUTH (see budget.go).
	slot      bool        // holds an unauthenticated-connection slot; guarded by mu
	authTimer *time.Timer // closes the connection at AuthTimeout
	tokens    float64     // messages left in the budget; reader goroutine only
	refilled  time.Time
}

func newConn(r *Relay, ws *websocket.Conn, req *http.Request, addr string) *Conn {
	var b [16]byte
	rand.Read(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		relay:     r,
		ws:        ws,
		raw:       ws.UnderlyingConn(),
		challenge: hex.EncodeToString(b[:]),
		since:     time.Now(),
		remote:    remoteAddr(req),
		addr:      addr,
		ctx:       ctx,
		cancel:    cancel,
		inflight:  make(chan struct{}, r.cfg.MaxInflight),
		queued:    make(chan struct{}, r.cfg.MaxQueued),
	}
	c.startUnauth()
	return c
}

func remoteAddr(req *http.Request) string {
	if f := req.Header.Get("X-Forwarded-For"); f != "" {
		return f
	}
	return req.RemoteAddr
}

// PubKey is the NIP-42 authenticated pubkey, or "" before AUTH.
func (c *Conn) PubKey() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pubkey
}

// Owner is the member an authenticated agent or device acts for ("" for a member).
func (c *Conn) Owner() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.owner
}

// SetOwner records, during Admit, that the authenticating key is an agent of owner.
func (c *Conn) SetOwner(owner string) {
	c.mu.Lock()
	c.owner = owner
	c.mu.Unlock()
}

// SetMeta attaches policy data to the connection (done during Admit).
func (c *Conn) SetMeta(v any) {
	c.mu.Lock()
	c.meta = v
	c.mu.Unlock()
}

// Meta returns what SetMeta attached.
func (c *Conn) Meta() any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.meta
}

// Challenge is this connection's NIP-42 challenge.
func (c *Conn) Challenge() string { return c.challenge }

// RemoteAddr is the client's address, for logs.
func (c *Conn) RemoteAddr() string { return c.remote }

// Context is cancelled when the connection closes.
func (c *Conn) Context() context.Context { return c.ctx }

func (c *Conn) readLoop() {
	defer c.shutdown("")
	timeout := 3 * c.relay.cfg.PingInterval
	c.ws.SetReadDeadline(time.Now().Add(timeout))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(timeout))
	})
	// Always offer NIP-42; RequireAuth decides whether it is enforced.
	c.send(authChallenge(c.challenge))
	for {
		typ, msg, err := c.readMessage()
		if err != nil {
			return
		}
		c.ws.SetReadDeadline(time.Now().Add(timeout))
		if c.needsAuth() {
			// Before AUTH, one message at a time from a small budget, handled
			// here: nothing queues, and the reader stops while it is handled.
			if !c.spendUnauthToken() {
				c.close(websocket.ClosePolicyViolation, fmt.Sprintf("rate-limited: more than %d messages before AUTH; authenticate first", c.relay.cfg.UnauthBurst), true)
				return
			}
			if typ != websocket.TextMessage {
				c.send(notice("invalid: only text frames carry Nostr messages"))
				continue
			}
			c.handle(msg)
			continue
		}
		if typ != websocket.TextMessage {
			c.send(notice("invalid: only text frames carry Nostr messages"))
			continue
		}
		// Wait for room: a client that sends faster than the hub handles is
		// held back here, and through TCP.
		select {
		case c.queued <- struct{}{}:
		case <-c.ctx.Done():
			return
		}
		c.mu.Lock()
		c.in = append(c.in, msg)
		start := !c.working
		c.working = true
		c.mu.Unlock()
		if start {
			go c.work()
		}
	}
}

// readMessage reads the next message, at most MaxMessageBytes (or
// MaxUnauthMessageBytes before AUTH). A larger one closes the connection with
// a reason and an error is returned.
func (c *Conn) readMessage() (int, []byte, error) {
	typ, rd, err := c.ws.NextReader()
	if err != nil {
		return 0, nil, err
	}
	limit, what := c.relay.cfg.MaxMessageBytes, "max_message_length"
	if c.needsAuth() {
		limit, what = c.relay.cfg.MaxUnauthMessageBytes, "max_unauth_message_length; authenticate first"
	}
	msg, err := io.ReadAll(io.LimitReader(rd, int64(limit)+1))
	if err != nil {
		return 0, nil, err
	}
	if len(msg) > limit {
		c.close(websocket.CloseMessageTooBig, fmt.Sprintf("invalid: message larger than %d bytes (%s)", limit, what), true)
		return 0, nil, errTooBig
	}
	return typ, msg, nil
}

var errTooBig = errors.New("message too big")

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

// send queues msg for the writer. A client that lets more than MaxOutboundBytes
// pile up is too slow to keep and is disconnected.
func (c *Conn) send(msg []byte) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if c.outBytes+len(msg) > c.relay.cfg.MaxOutboundBytes {
		drop := !c.dropping
		c.dropping = true
		queued := c.outBytes
		c.mu.Unlock()
		if drop {
			// Not inline: send may run under the subscription index's lock.
			c.relay.log.Warn("dropping slow consumer", "remote", c.remote, "queued_bytes", queued)
			go c.shutdown("rate-limited: you are not reading fast enough")
		}
		return
	}
	c.out = append(c.out, msg)
	c.outBytes += len(msg)
	if !c.writing {
		c.writing = true
		go c.flush()
	}
	c.mu.Unlock()
}

func (c *Conn) flush() {
	var buf []byte
	for {
		c.mu.Lock()
		if c.closed || len(c.out) == 0 {
			c.writing = false
			c.out = nil
			c.mu.Unlock()
			return
		}
		batch := c.out
		c.out = nil
		c.mu.Unlock()
		// Everything queued goes out as complete frames in as few writes as
		// possible: a page of 50 events is one syscall, not 50.
		for len(batch) > 0 {
			var sent int
			buf, batch, sent = appendFrames(buf[:0], batch, 256<<10)
			c.raw.SetWriteDeadline(time.Now().Add(c.relay.cfg.WriteTimeout))
			_, err := c.raw.Write(buf)
			c.mu.Lock()
			c.outBytes -= sent
			c.mu.Unlock()
			if err != nil {
				c.shutdown("")
				return
			}
		}
	}
}

// appendFrames renders messages as unmasked websocket text frames (RFC 6455
// section 5.2; a server never masks) until about max bytes, and returns the
// messages left and the payload bytes it took. Each call to net.Conn.Write is atomic with respect to other
// writers, so gorilla's control frames (ping, pong, close) never land inside
// one of these frames.
func appendFrames(dst []byte, msgs [][]byte, max int) ([]byte, [][]byte, int) {
	payload := 0
	for len(msgs) > 0 && (len(dst) == 0 || len(dst)+len(msgs[0]) <= max) {
		m := msgs[0]
		msgs = msgs[1:]
		n := len(m)
		dst = append(dst, 0x81) // FIN, text
		switch {
		case n < 126:
			dst = append(dst, byte(n))
		case n <= 0xFFFF:
			dst = append(dst, 126, byte(n>>8), byte(n))
		default:
			dst = append(dst, 127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		}
		dst = append(dst, m...)
		payload += n
	}
	return dst, msgs, payload
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
	c.mu.Unlock()
	c.cancel()
	deadline := time.Now().Add(time.Second)
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, truncate(reason, 120)), deadline)
	if tc, ok := c.raw.(interface{ CloseWrite() error }); ok && unread {
		tc.CloseWrite()
		c.raw.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		io.Copy(io.Discard, io.LimitReader(c.raw, lingerBytes))
	}
	c.ws.Close()
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
