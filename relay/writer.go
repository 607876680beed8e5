package relay

import (
	"net"
	"sync"
	"time"
)

// Outbound path. Each connection queues complete websocket frames (see
// messages.go). A live event for a connection with nothing queued or being
// written is written at once by the goroutine that delivers it, with one
// writev that does not wait (sockwrite_linux.go): no hand-off, no deadline.
// Otherwise the connection is handed to the relay's small pool of writer
// goroutines, which write what is queued the same way: a delivery wakes a pool
// goroutine, it does not start one. A socket that does not take all the bytes
// at once (its client reads slowly, or the hub sends a big page) gets a
// goroutine of its own until its queue is empty, which writes with
// WriteTimeout per attempt; the rest of a partly written frame goes first.
// Over TLS (and off Linux) every flush takes that second path.
//
// The slow-consumer rule measures whether the client reads, not how much it
// is sent:
//   - a connection's own answers (a REQ's stored events, OK, EOSE, COUNT)
//     wait for room in its queue, so a page of any size streams at the speed
//     the client reads it;
//   - live events never wait: past MaxOutboundBytes queued, the client is
//     dropped if its socket has taken nothing for stallWindow, or if the
//     queue reaches 4 × MaxOutboundBytes (it reads slower than it is sent);
//   - a socket that takes nothing for WriteTimeout is dropped.

const (
	stallWindow = time.Second
	batchBytes  = 256 << 10 // most bytes one write takes from a queue
	hardCapX    = 4         // live events are dropped past this many MaxOutboundBytes
)

// outFrame is one queued websocket frame: head, then body if there is one.
// A live event's body (its JSON and the closing bracket) is shared by the
// frames of every subscriber it goes to.
type outFrame struct{ head, body []byte }

func (f outFrame) size() int { return len(f.head) + len(f.body) }

// sockWriters lend writers to the connections' workers, which write their
// own answers (replyOwned).
var sockWriters = sync.Pool{New: func() any { return newSockWriter() }}

// writerPool hands connections with queued frames to its goroutines.
type writerPool struct {
	mu    sync.Mutex
	cond  sync.Cond
	ready []*Conn
	stop  bool
}

func (r *Relay) startWriters(n int) {
	r.writers.cond.L = &r.writers.mu
	for i := 0; i < n; i++ {
		r.wg.Add(1)
		go r.writeLoop()
	}
}

func (p *writerPool) push(c *Conn) {
	p.mu.Lock()
	p.ready = append(p.ready, c)
	p.mu.Unlock()
	p.cond.Signal()
}

func (p *writerPool) pop() *Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.ready) == 0 && !p.stop {
		p.cond.Wait()
	}
	if p.stop {
		return nil
	}
	c := p.ready[0]
	p.ready[0] = nil
	p.ready = p.ready[1:]
	return c
}

func (p *writerPool) close() {
	p.mu.Lock()
	p.stop = true
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (r *Relay) writeLoop() {
	defer r.wg.Done()
	w := newSockWriter()
	for c := r.writers.pop(); c != nil; c = r.writers.pop() {
		c.writeFast(w)
	}
}

// send queues a frame without waiting: for live events and for answers sent
// from goroutines that must not block (the store's commit callback).
func (c *Conn) send(f []byte) { c.sendFrame(outFrame{head: f}) }

// sendFrame is send for a frame in two parts.
func (c *Conn) sendFrame(f outFrame) {
	c.mu.Lock()
	if c.admitLive(f.size()) {
		c.enqueue(f)
	}
	c.mu.Unlock()
}

// sendLive is sendFrame for the fan-out: when nothing is queued on c or being
// written, the frame is written at once from the calling goroutine with w,
// without waiting; what the socket does not take is queued first and goes to
// writeSlow.
func (c *Conn) sendLive(w *sockWriter, f outFrame) {
	size := f.size()
	c.mu.Lock()
	if !c.admitLive(size) {
		c.mu.Unlock()
		return
	}
	if c.writing || len(c.out) > 0 || c.sock == nil {
		c.enqueue(f)
		c.mu.Unlock()
		return
	}
	c.writing = true // the socket's write side is this goroutine's
	c.mu.Unlock()
	c.writeOwned(w, net.Buffers{f.head, f.body}, size)
}

// sendLiveFrames is sendLive for several events to c at once, in order:
// one write for all of them when the socket is free.
func (c *Conn) sendLiveFrames(w *sockWriter, fs []outFrame) {
	if len(fs) == 1 {
		c.sendLive(w, fs[0])
		return
	}
	size := 0
	for _, f := range fs {
		size += f.size()
	}
	c.mu.Lock()
	if !c.admitLive(size) {
		c.mu.Unlock()
		return
	}
	if c.writing || len(c.out) > 0 || c.sock == nil {
		for _, f := range fs {
			c.enqueue(f)
		}
		c.mu.Unlock()
		return
	}
	c.writing = true // the socket's write side is this goroutine's
	c.mu.Unlock()
	bufs := make(net.Buffers, 0, 2*len(fs))
	for _, f := range fs {
		bufs = append(bufs, f.head, f.body)
	}
	c.writeOwned(w, bufs, size)
}

// writeOwned writes bufs (size bytes) with w once the caller has taken the
// socket's write side (c.writing, set with nothing queued), without
// waiting: what the socket does not take goes to writeSlow, which then owns
// bufs. It reports whether the socket took all of it, so the caller may
// reuse its memory.
func (c *Conn) writeOwned(w *sockWriter, bufs net.Buffers, size int) bool {
	n, err := w.write(c.sock, bufs)
	switch {
	case err != nil:
		go c.shutdown("") // not inline: closing writes a close frame, with a deadline
		return false
	case n == size:
		c.release()
		return true
	default:
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return false
		}
		c.outBytes += size - n
		c.member.add(size - n)
		c.progress = time.Now()
		c.midFrame = n > 0
		c.mu.Unlock()
		advance(&bufs, n)
		go c.writeSlow(bufs)
		return false
	}
}

// admitLive reports whether a live event of size bytes may be queued on c,
// and starts dropping c as a slow consumer if not. c.mu is held.
func (c *Conn) admitLive(size int) bool {
	if c.closed {
		return false
	}
	max := c.relay.cfg.MaxOutboundBytes
	n := c.outBytes + size
	if n > max && (n > hardCapX*max || time.Since(c.progress) > stallWindow) || c.member.over(size, 2*c.relay.cfg.MaxMemberQueued) {
		if !c.dropping {
			c.dropping = true
			// Not inline: send may run under the subscription index's lock.
			go c.dropSlow(c.outBytes)
		}
		return false
	}
	return true
}

// reply sends a frame, first waiting while the queue holds MaxOutboundBytes:
// for the connection's own answers, sent from its worker.
func (c *Conn) reply(f []byte) { c.replyOwned(f) }

// replyOwned is reply that writes f at once from the calling goroutine when
// nothing is queued on c or being written (no hand-off to a pool writer),
// and reports whether f's memory is the caller's again: the socket took all
// of it, or the connection is closed.
func (c *Conn) replyOwned(f []byte) bool {
	c.waitMemberRoom(len(f))
	c.mu.Lock()
	for !c.closed && c.outBytes > 0 && c.outBytes+len(f) > c.relay.cfg.MaxOutboundBytes {
		c.room.Wait()
	}
	switch {
	case c.closed:
		c.mu.Unlock()
		return true
	case c.writing || len(c.out) > 0 || c.sock == nil:
		c.enqueue(outFrame{head: f})
		c.mu.Unlock()
		return false
	}
	c.writing = true // the socket's write side is this goroutine's
	c.mu.Unlock()
	w := sockWriters.Get().(*sockWriter)
	defer sockWriters.Put(w)
	return c.writeOwned(w, net.Buffers{f}, len(f))
}

// sendControl queues a control frame (ping, pong) past any cap.
func (c *Conn) sendControl(f []byte) {
	c.mu.Lock()
	if !c.closed {
		c.enqueue(outFrame{head: f})
	}
	c.mu.Unlock()
}

// enqueue appends f and makes sure a writer will take it. c.mu is held.
func (c *Conn) enqueue(f outFrame) {
	c.out = append(c.out, f)
	c.outBytes += f.size()
	c.member.add(f.size())
	if !c.writing {
		c.writing = true
		c.progress = time.Now()
		c.relay.writers.push(c)
	}
}

// take removes up to batchBytes of queued frames, or reports that the writer
// is done (the queue is empty or the connection closed). c.mu is held.
func (c *Conn) take() (net.Buffers, bool) {
	if c.closed || len(c.out) == 0 {
		c.writing = false
		c.out = nil
		c.room.Broadcast()
		return nil, false
	}
	n, size := 0, 0
	for n < len(c.out) && (n == 0 || size+c.out[n].size() <= batchBytes) {
		size += c.out[n].size()
		n++
	}
	batch := make(net.Buffers, 0, 2*n)
	for _, f := range c.out[:n] {
		batch = append(batch, f.head)
		if f.body != nil {
			batch = append(batch, f.body)
		}
	}
	if n == len(c.out) {
		c.out = nil
	} else {
		clear(c.out[:n])
		c.out = c.out[n:]
	}
	return batch, true
}

// wrote accounts for n bytes taken by the socket. c.mu is not held.
func (c *Conn) wrote(n int64) {
	if n == 0 {
		return
	}
	c.mu.Lock()
	if c.closed { // leaveMember gave back what was queued
		c.mu.Unlock()
		return
	}
	c.outBytes -= int(n)
	c.progress = time.Now()
	m := c.member
	c.mu.Unlock()
	m.add(-int(n))
	c.room.Broadcast()
}

// writeFast runs on a pool goroutine: one write of what is queued, without
// waiting, handed to writeSlow if the socket does not take it all at once.
func (c *Conn) writeFast(w *sockWriter) {
	c.mu.Lock()
	batch, ok := c.take()
	c.mu.Unlock()
	if !ok {
		return
	}
	if c.sock == nil {
		go c.writeSlow(batch)
		return
	}
	size := 0
	for _, b := range batch {
		size += len(b)
	}
	n, err := w.write(c.sock, batch)
	c.wrote(int64(n))
	switch {
	case err != nil:
		c.shutdown("")
	case n == size:
		c.release()
	default:
		// Part of a frame may be out: the rest goes before anything else.
		c.mu.Lock()
		c.midFrame = n > 0
		c.mu.Unlock()
		advance(&batch, n)
		go c.writeSlow(batch)
	}
}

// release gives up the socket's write side after a write that took all it
// was given, or hands c back to the pool if more was queued meanwhile.
func (c *Conn) release() {
	c.mu.Lock()
	more := !c.closed && len(c.out) > 0
	if !more {
		c.writing = false
	}
	c.mu.Unlock()
	if more {
		c.relay.writers.push(c) // behind the others: one batch per turn
	}
}

// advance drops the first n bytes of b.
func advance(b *net.Buffers, n int) {
	for len(*b) > 0 && n >= len((*b)[0]) {
		n -= len((*b)[0])
		(*b)[0] = nil
		*b = (*b)[1:]
	}
	if len(*b) > 0 {
		(*b)[0] = (*b)[0][n:]
	}
}

// writeSlow writes batch and then everything queued after it, on a goroutine
// of the connection's own, and returns when the queue is empty.
func (c *Conn) writeSlow(batch net.Buffers) {
	_, plain := c.raw.(*net.TCPConn)
	for {
		for len(batch) > 0 {
			c.raw.SetWriteDeadline(time.Now().Add(c.relay.cfg.WriteTimeout))
			var n int64
			var err error
			if plain {
				n, err = batch.WriteTo(c.raw)
			} else {
				// One write, so TLS makes records of up to 16 KiB, not one per frame.
				var flat []byte
				for _, b := range batch {
					flat = append(flat, b...)
				}
				var m int
				m, err = c.raw.Write(flat)
				n, batch = int64(m), nil
			}
			c.wrote(n)
			if err != nil {
				if isTimeout(err) && (n > 0 && plain) {
					continue // the client reads, slowly: keep going
				}
				if isTimeout(err) {
					c.dropSlow(-1)
				} else {
					c.shutdown("")
				}
				return
			}
		}
		// The next fast write must not meet this deadline once it has passed.
		c.raw.SetWriteDeadline(time.Time{})
		c.mu.Lock()
		c.midFrame = false
		var ok bool
		batch, ok = c.take()
		c.mu.Unlock()
		if !ok {
			return
		}
	}
}

// dropSlow disconnects a client that does not read what it is sent.
func (c *Conn) dropSlow(queued int) {
	if queued < 0 {
		c.mu.Lock()
		queued = c.outBytes
		c.mu.Unlock()
	}
	c.relay.log.Warn("dropping slow consumer", "remote", c.remote, "queued_bytes", queued)
	c.relay.metrics().SlowConsumer()
	c.shutdown("rate-limited: you are not reading fast enough")
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
