package relay

import "sync"

// answer gathers the frames of one REQ's stored answer (its events, then
// EOSE or CLOSED) into one buffer, rendered straight from the stored JSON,
// and sends them together: a small answer is one write of the socket, from
// the connection's worker, instead of a frame allocated, queued and handed
// to a pool writer per event.
type answer struct {
	c   *Conn
	buf []byte
	// counted: events of kind sent and not yet counted (Metrics.EventOut)
	kind, counted int
}

// answerFlush is how many bytes an answer gathers before it sends them: a
// big answer goes out in pieces of about this size, each waiting for room in
// the connection's queue (reply), so it still streams at the client's speed.
const answerFlush = 64 << 10

// answerBufs holds the buffers of answers whose bytes the socket took.
var answerBufs = sync.Pool{New: func() any { return new([]byte) }}

func (c *Conn) newAnswer() *answer {
	return &answer{c: c, buf: (*answerBufs.Get().(*[]byte))[:0]}
}

// event adds ["EVENT",<sub>,<event>] from the subscription's rendered
// prefix and the JSON of an event of kind.
func (a *answer) event(prefix, evJSON []byte, kind int) {
	if a.counted > 0 && kind != a.kind {
		a.count()
	}
	a.kind = kind
	a.counted++
	n := len(prefix) + len(evJSON) + len(closeBracket)
	a.buf = appendHeader(a.buf, opText, n)
	a.buf = append(append(append(a.buf, prefix...), evJSON...), closeBracket...)
	if len(a.buf) >= answerFlush {
		a.flush()
	}
}

// frame adds a complete frame (EOSE, CLOSED).
func (a *answer) frame(f []byte) { a.buf = append(a.buf, f...) }

// flush sends what the answer holds.
func (a *answer) flush() {
	if len(a.buf) == 0 {
		return
	}
	if a.c.replyOwned(a.buf) {
		a.buf = a.buf[:0]
	} else {
		a.buf = nil // the connection's queue holds it now
	}
}

// count hands the events counted so far to the metrics.
func (a *answer) count() {
	a.c.relay.metrics().EventOut(a.kind, a.counted)
	a.counted = 0
}

// done sends what is left, counts it and gives the buffer back.
func (a *answer) done() {
	a.flush()
	if a.counted > 0 {
		a.count()
	}
	if cap(a.buf) > 0 && cap(a.buf) <= 4*answerFlush {
		b := a.buf[:0]
		answerBufs.Put(&b)
	}
	a.buf = nil
}
