package relay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gorilla/websocket"
)

// Inbound path. An idle connection holds no read buffer and one goroutine
// that has done nothing but wait for the socket to become readable
// (waitReadable), so its stack stays at the smallest size. When the client
// sends something, a fresh goroutine reads with a buffer from the relay's
// pool for as long as bytes are buffered or a frame is incomplete, then hands
// the connection back to a new waiter and returns the buffer. The frames are
// read here (RFC 6455, server side: masked client frames, fragmented
// messages, control frames); gorilla/websocket does the upgrade only.

// serveReads sends the NIP-42 challenge and starts waiting for the client.
func (c *Conn) serveReads() {
	// Always offer NIP-42; RequireAuth decides whether it is enforced.
	c.send(authChallenge(c.challenge))
	c.extendDeadline()
	go c.wait()
}

// extendDeadline gives the client 3 ping intervals to send its next frame.
func (c *Conn) extendDeadline() {
	c.raw.SetReadDeadline(time.Now().Add(3 * c.relay.cfg.PingInterval))
}

// wait parks until the client sends something, then reads on a new goroutine.
func (c *Conn) wait() {
	if err := waitReadable(c.raw); err != nil {
		c.shutdown("")
		return
	}
	go c.readBurst()
}

// readBurst reads and dispatches what the client sent, until nothing is
// left in the buffer at a message boundary.
func (c *Conn) readBurst() {
	br := c.relay.readers.Get().(*bufio.Reader)
	br.Reset(c.raw)
	defer func() {
		br.Reset(nil)
		c.relay.readers.Put(br)
	}()
	for {
		typ, msg, err := c.readMessage(br)
		if err != nil {
			c.shutdown("")
			return
		}
		if msg != nil {
			c.extendDeadline()
			if !c.dispatch(typ, msg) {
				return
			}
		}
		if br.Buffered() == 0 {
			go c.wait()
			return
		}
	}
}

// dispatch handles one message (before AUTH) or queues it for the worker.
// false means the connection is closing.
func (c *Conn) dispatch(typ int, msg []byte) bool {
	if c.needsAuth() {
		// Before AUTH, one message at a time from a small budget: nothing
		// queues, and reading waits while it is handled.
		if !c.spendUnauthToken() {
			c.close(websocket.ClosePolicyViolation, fmt.Sprintf("rate-limited: more than %d messages before AUTH; authenticate first", c.relay.cfg.UnauthBurst), true)
			return false
		}
		if typ != websocket.TextMessage {
			c.send(notice("invalid: only text frames carry Nostr messages"))
			return true
		}
		c.handle(msg)
		return c.ctx.Err() == nil
	}
	if typ != websocket.TextMessage {
		c.send(notice("invalid: only text frames carry Nostr messages"))
		return true
	}
	// Wait for room: a client that sends faster than the hub handles is
	// held back here, and through TCP.
	select {
	case c.queued <- struct{}{}:
	default: // full (Done's channel is made only when someone waits on it)
		select {
		case c.queued <- struct{}{}:
		case <-c.ctx.Done():
			return false
		}
	}
	c.mu.Lock()
	c.in = append(c.in, msg)
	start := !c.working
	c.working = true
	c.mu.Unlock()
	if start {
		go c.work()
	}
	return true
}

var (
	errTooBig     = errors.New("message too big")
	errPeerClosed = errors.New("the client closed the connection")
)

// readMessage reads the next data message, at most MaxMessageBytes (or
// MaxUnauthMessageBytes before AUTH), answering the control frames before
// it. It returns a nil message, and no error, when only control frames were
// buffered. A message too large or a frame that breaks RFC 6455 closes the
// connection with the reason, and an error is returned.
func (c *Conn) readMessage(br *bufio.Reader) (int, []byte, error) {
	limit, what := c.relay.cfg.MaxMessageBytes, "max_message_length"
	if c.needsAuth() {
		limit, what = c.relay.cfg.MaxUnauthMessageBytes, "max_unauth_message_length; authenticate first"
	}
	var msg []byte
	typ := 0 // the message's opcode, once its first frame is read
	for {
		fin, op, n, key, err := readFrameHeader(br)
		if err != nil {
			return 0, nil, c.protocolError(err)
		}
		if op >= 8 { // control frame, possibly between a message's fragments
			var b [125]byte
			p := b[:n]
			if _, err := io.ReadFull(br, p); err != nil {
				return 0, nil, err
			}
			unmask(p, key)
			switch op {
			case 8:
				return 0, nil, errPeerClosed
			case 9:
				c.sendControl(frame(opPong, p))
			case 10:
				c.extendDeadline()
			}
			if typ == 0 && br.Buffered() == 0 {
				return 0, nil, nil
			}
			continue
		}
		switch {
		case op == 0 && typ == 0:
			return 0, nil, c.protocolError(&frameError{"websocket frame: continuation frame outside a message"})
		case op != 0 && typ != 0:
			return 0, nil, c.protocolError(&frameError{"websocket frame: a new message inside a fragmented one"})
		case op != 0:
			typ = int(op)
		}
		if int64(len(msg))+n > int64(limit) {
			c.close(websocket.CloseMessageTooBig, fmt.Sprintf("invalid: message larger than %d bytes (%s)", limit, what), true)
			return 0, nil, errTooBig
		}
		start := len(msg)
		msg = slices.Grow(msg, int(n))[:start+int(n)]
		if _, err := io.ReadFull(br, msg[start:]); err != nil {
			return 0, nil, err
		}
		unmask(msg[start:], key)
		if fin {
			if msg == nil {
				msg = []byte{}
			}
			return typ, msg, nil
		}
	}
}

// frameError is a frame that breaks RFC 6455.
type frameError struct{ msg string }

func (e *frameError) Error() string { return e.msg }

// protocolError closes the connection for a frame that breaks RFC 6455, and
// passes on any other error (a read that failed).
func (c *Conn) protocolError(err error) error {
	var fe *frameError
	if errors.As(err, &fe) {
		c.close(websocket.CloseProtocolError, "invalid: "+fe.msg, true)
	}
	return err
}

// readFrameHeader reads a client frame's header: FIN, the opcode, the
// payload's length and its masking key.
func readFrameHeader(br *bufio.Reader) (fin bool, op byte, n int64, key [4]byte, err error) {
	var h [8]byte
	if _, err = io.ReadFull(br, h[:2]); err != nil {
		return
	}
	fin, op, n = h[0]&0x80 != 0, h[0]&0x0f, int64(h[1]&0x7f)
	bad := func(msg string) (bool, byte, int64, [4]byte, error) {
		return false, 0, 0, key, &frameError{"websocket frame: " + msg}
	}
	switch {
	case h[0]&0x70 != 0:
		return bad("reserved bits set (no extension was negotiated)")
	case h[1]&0x80 == 0:
		return bad("a client's frames must be masked")
	case op > 2 && op < 8 || op > 10:
		return bad(fmt.Sprintf("unknown opcode %d", op))
	case op >= 8 && (!fin || n > 125):
		return bad("control frames must be whole and at most 125 bytes")
	}
	switch n {
	case 126:
		if _, err = io.ReadFull(br, h[:2]); err != nil {
			return
		}
		n = int64(binary.BigEndian.Uint16(h[:2]))
	case 127:
		if _, err = io.ReadFull(br, h[:8]); err != nil {
			return
		}
		n = int64(binary.BigEndian.Uint64(h[:8]))
		if n < 0 {
			return bad("payload length out of range")
		}
	}
	_, err = io.ReadFull(br, key[:])
	return
}

// unmask undoes a client frame's masking (RFC 6455 section 5.3).
func unmask(p []byte, key [4]byte) {
	for i := range p {
		p[i] ^= key[i&3]
	}
}
