package endpoint

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// conn is one websocket client of the pairing endpoint. Its reader runs in
// ServeHTTP's goroutine; a writer goroutine drains out.
type conn struct {
	s    *Server
	ws   *websocket.Conn
	ip   string
	out  chan []byte
	done chan struct{}
	once sync.Once

	// p, subID, member (the key of a member who authenticated) and got
	// (the ids delivered to a member's session) are guarded by s.mu.
	p, subID, member string
	got              map[string]struct{}
	challenge        string // NIP-42

	frames, events window
	verified       int
}

func newConn(s *Server, ws *websocket.Conn, ip string) *conn {
	return &conn{s: s, ws: ws, ip: ip, out: make(chan []byte, s.lim.OutboundQueue), done: make(chan struct{}),
		challenge: newChallenge()}
}

// run reads until the connection ends, its lifetime is over or Close.
func (c *conn) run() {
	lim := c.s.lim
	c.ws.SetReadLimit(lim.MaxFrame)
	life := time.AfterFunc(lim.ConnLifetime, func() {
		c.notice("connection lifetime over (%d s); reconnect for a new pairing", int(lim.ConnLifetime/time.Second))
		time.AfterFunc(100*time.Millisecond, c.close)
	})
	defer life.Stop()
	go c.writer()
	defer c.close()
	c.s.mu.Lock()
	auth := c.s.isMember != nil
	c.s.mu.Unlock()
	if auth {
		c.reply("AUTH", c.challenge)
	}
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			if err == websocket.ErrReadLimit {
				c.notice("invalid: message larger than %d bytes", lim.MaxFrame)
			}
			return
		}
		if !c.frames.allow(c.s.now(), lim.RateWindow, lim.RateFrames) {
			c.notice("rate-limited: more than %d messages in %s; slow down", lim.RateFrames, lim.RateWindow)
			continue
		}
		c.handle(msg)
	}
}

func (c *conn) writer() {
	for {
		select {
		case <-c.done:
			return
		case m := <-c.out:
			c.ws.SetWriteDeadline(time.Now().Add(c.s.lim.WriteTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, m); err != nil {
				c.close()
				return
			}
		}
	}
}

// send queues a message; a connection whose queue is full is dropped.
func (c *conn) send(m []byte) bool {
	select {
	case <-c.done:
		return false
	case c.out <- m:
		return true
	default:
		c.close()
		return false
	}
}

func (c *conn) close() {
	c.once.Do(func() {
		close(c.done)
		c.ws.Close()
	})
}

func (c *conn) reply(v ...any) {
	b, _ := json.Marshal(v)
	c.send(b)
}

func (c *conn) notice(format string, args ...any) { c.reply("NOTICE", fmt.Sprintf(format, args...)) }

// handle dispatches one client message.
func (c *conn) handle(msg []byte) {
	var arr []json.RawMessage
	var label string
	if json.Unmarshal(msg, &arr) != nil || len(arr) == 0 || json.Unmarshal(arr[0], &label) != nil {
		c.notice("invalid: a message is a JSON array whose first element is REQ, CLOSE, EVENT or AUTH")
		return
	}
	switch label {
	case "REQ":
		c.handleReq(arr)
	case "CLOSE":
		var id string
		if len(arr) != 2 || json.Unmarshal(arr[1], &id) != nil {
			c.notice("invalid: CLOSE takes one subscription id")
			return
		}
		c.s.unsubscribe(c)
		c.reply("CLOSED", id, "")
	case "EVENT":
		c.handleEvent(arr)
	case "AUTH":
		c.handleAuth(arr)
	default:
		c.notice("invalid: this pairing endpoint accepts REQ, CLOSE, EVENT and AUTH, not %q", label)
	}
}

func (c *conn) handleReq(arr []json.RawMessage) {
	var id string
	if len(arr) < 2 || json.Unmarshal(arr[1], &id) != nil || id == "" || len(id) > c.s.lim.MaxSubIDLength {
		c.notice("invalid: REQ needs a subscription id of 1 to %d characters", c.s.lim.MaxSubIDLength)
		return
	}
	if len(arr) != 3 {
		c.reply("CLOSED", id, "invalid: a pairing REQ has exactly one filter")
		return
	}
	c.s.mu.Lock()
	cur := c.subID
	c.s.mu.Unlock()
	if cur != "" && cur != id {
		c.reply("CLOSED", id, "invalid: one subscription per connection; CLOSE "+cur+" first")
		return
	}
	p, why := parseFilter(arr[2])
	if why == "" {
		why = c.s.subscribe(c, id, p)
	}
	if why != "" {
		c.reply("CLOSED", id, why)
		return
	}
	c.reply("EOSE", id)
}

func (c *conn) handleEvent(arr []json.RawMessage) {
	lim := c.s.lim
	var probe struct {
		ID string `json:"id"`
	}
	if len(arr) == 2 {
		json.Unmarshal(arr[1], &probe)
	}
	ok := func(msg string) { c.reply("OK", probe.ID, msg == "", msg) }
	if len(arr) != 2 {
		ok("invalid: EVENT takes one event")
		return
	}
	if !c.events.allow(c.s.now(), lim.RateWindow, lim.RateEvents) {
		ok(fmt.Sprintf("rate-limited: more than %d events in %s", lim.RateEvents, lim.RateWindow))
		return
	}
	if c.verified >= lim.EventsPerConn {
		ok(fmt.Sprintf("error: session event limit reached (%d events per connection)", lim.EventsPerConn))
		return
	}
	ev, p, why := parseEvent(arr[1], c.s.now(), lim.Freshness)
	if why != "" {
		ok(why)
		return
	}
	if !c.s.listening(p) { // before the signature check: refusing costs nothing
		ok("error: no live subscriber for this p; the other device is not listening (yet), retry")
		return
	}
	c.verified++
	if why := verify(ev); why != "" {
		ok(why)
		return
	}
	raw := arr[1]
	ok(c.s.deliver(ev.ID, p, c, func(subID string) []byte {
		b, _ := json.Marshal([]any{"EVENT", subID, raw})
		return b
	}))
}
