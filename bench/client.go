package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// handlers receive what a connection reads; t is when the frame was read. They run on the
// connection's reader goroutine and must not block for long. raw is only valid during the
// call (the read buffer is reused): copy it to keep it.
type handlers struct {
	ok     func(id string, ok bool, reason string, t time.Time)
	event  func(sub string, raw []byte, t time.Time)
	eose   func(sub string, t time.Time)
	closed func(sub, reason string, t time.Time)
}

// client is one websocket connection to a relay. It answers every AUTH challenge with the
// admin key and, when the relay sends one on connect, does not return from dial until the
// relay accepted the AUTH.
type client struct {
	ws       *websocket.Conn
	wmu      sync.Mutex
	relayURL string
	h        handlers

	authMu   sync.Mutex
	authID   string
	authDone chan error // receives the OK of our AUTH event

	challenge chan string // first challenge seen
	chOnce    sync.Once

	done    chan struct{}
	readErr error

	notices atomic.Int64
}

// authMode tells dial whether the relay sends an AUTH challenge on connect.
type authMode struct {
	mu    sync.Mutex
	known bool
	sends bool
}

var dialer = websocket.Dialer{
	HandshakeTimeout: 20 * time.Second,
	ReadBufferSize:   4096,
	WriteBufferSize:  4096,
	NetDialContext:   (&net.Dialer{Timeout: 20 * time.Second}).DialContext,
}

// dial connects and, when the relay challenges, authenticates as the admin.
// mode is shared by all connections to one relay: the first one learns (waiting up to 1s for a
// challenge) whether the relay challenges on connect, the later ones rely on that.
func dial(ctx context.Context, url string, mode *authMode, h handlers) (*client, error) {
	ws, _, err := dialer.DialContext(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	c := &client{
		ws:        ws,
		relayURL:  url,
		h:         h,
		authDone:  make(chan error, 1),
		challenge: make(chan string, 1),
		done:      make(chan struct{}),
	}
	go c.readLoop()

	mode.mu.Lock()
	known, sends := mode.known, mode.sends
	if !known {
		// hold the lock so only one connection probes
		defer mode.mu.Unlock()
	} else {
		mode.mu.Unlock()
	}
	wait := 10 * time.Second
	if !known {
		wait = time.Second
	} else if !sends {
		return c, nil
	}
	select {
	case <-c.challenge:
		if !known {
			mode.known, mode.sends = true, true
		}
	case <-time.After(wait):
		if known {
			c.close()
			return nil, errors.New("relay sent no AUTH challenge")
		}
		mode.known, mode.sends = true, false
		return c, nil
	case <-c.done:
		return nil, fmt.Errorf("connection closed before AUTH: %v", c.readErr)
	case <-ctx.Done():
		c.close()
		return nil, ctx.Err()
	}
	select {
	case err := <-c.authDone:
		if err != nil {
			c.close()
			return nil, err
		}
		return c, nil
	case <-time.After(20 * time.Second):
		c.close()
		return nil, errors.New("no OK for AUTH")
	case <-c.done:
		return nil, fmt.Errorf("connection closed during AUTH: %v", c.readErr)
	}
}

func (c *client) send(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

func (c *client) close() {
	c.wmu.Lock()
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	c.wmu.Unlock()
	c.ws.Close()
	<-c.done
}

func (c *client) answerAuth(challenge string) {
	ev := nostr.Event{
		Kind:      22242,
		CreatedAt: nostr.Now(),
		Tags:      nostr.Tags{{"relay", c.relayURL}, {"challenge", challenge}},
	}
	if err := ev.Sign(adminSK); err != nil {
		c.authDone <- err
		return
	}
	c.authMu.Lock()
	c.authID = ev.ID
	c.authMu.Unlock()
	b, _ := json.Marshal([]any{"AUTH", ev})
	if err := c.send(b); err != nil {
		c.authDone <- err
	}
}

func (c *client) readLoop() {
	defer close(c.done)
	buf := make([]byte, 0, 4096)
	for {
		_, r, err := c.ws.NextReader()
		if err != nil {
			c.readErr = err
			return
		}
		// read the frame into the reused buffer (gorilla's ReadMessage allocates per message)
		buf = buf[:0]
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				c.readErr = err
				return
			}
		}
		msg := buf
		t := time.Now()
		label, rest := parseLabel(msg)
		switch label {
		case "OK":
			id, rest := nextString(rest)
			ok := bytes.HasPrefix(bytes.TrimLeft(rest, " ,"), []byte("true"))
			reason := ""
			if !ok {
				reason, _ = nextString(rest)
			}
			c.authMu.Lock()
			isAuth := id != "" && id == c.authID
			c.authMu.Unlock()
			if isAuth {
				if ok {
					c.authDone <- nil
				} else {
					c.authDone <- fmt.Errorf("AUTH refused: %s", reason)
				}
				continue
			}
			if c.h.ok != nil {
				c.h.ok(id, ok, reason, t)
			}
		case "EVENT":
			sub, rest := nextString(rest)
			raw := bytes.TrimSpace(rest)
			raw = bytes.TrimPrefix(raw, []byte(","))
			raw = bytes.TrimSuffix(bytes.TrimSpace(raw), []byte("]"))
			if c.h.event != nil {
				c.h.event(sub, raw, t)
			}
		case "EOSE":
			sub, _ := nextString(rest)
			if c.h.eose != nil {
				c.h.eose(sub, t)
			}
		case "CLOSED":
			sub, rest := nextString(rest)
			reason, _ := nextString(rest)
			if c.h.closed != nil {
				c.h.closed(sub, reason, t)
			}
		case "AUTH":
			ch, _ := nextString(rest)
			c.chOnce.Do(func() { c.challenge <- ch })
			go c.answerAuth(ch)
		case "NOTICE":
			c.notices.Add(1)
			if n := c.notices.Load(); n <= 3 {
				s, _ := nextString(rest)
				logf("NOTICE from %s: %s", c.relayURL, s)
			}
		}
	}
}

// parseLabel returns the label of a relay message and the bytes after it.
func parseLabel(msg []byte) (string, []byte) {
	i := bytes.IndexByte(msg, '"')
	if i < 0 {
		return "", nil
	}
	j := bytes.IndexByte(msg[i+1:], '"')
	if j < 0 {
		return "", nil
	}
	return string(msg[i+1 : i+1+j]), msg[i+1+j+1:]
}

// nextString reads the next JSON string after a comma and returns it and the rest.
func nextString(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return "", nil
	}
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch {
		case esc:
			esc = false
		case b[j] == '\\':
			esc = true
		case b[j] == '"':
			s := b[i : j+1]
			if bytes.IndexByte(s, '\\') < 0 {
				return string(s[1 : len(s)-1]), b[j+1:]
			}
			var out string
			json.Unmarshal(s, &out)
			return out, b[j+1:]
		}
	}
	return "", nil
}

// eventIDKey pulls the id out of a raw event object without decoding it: `"id":"` can only
// occur unescaped as a key, and the only object with an "id" key is the event itself. The
// string shares raw's memory: use it for map lookups only, never keep it.
func eventIDKey(raw []byte) string {
	i := bytes.Index(raw, []byte(`"id":"`))
	if i < 0 || len(raw) < i+6+64 {
		return ""
	}
	return unsafe.String(&raw[i+6], 64)
}

func eventMsg(ev *nostr.Event) []byte {
	b, _ := ev.MarshalJSON()
	out := make([]byte, 0, len(b)+11)
	out = append(out, `["EVENT",`...)
	out = append(out, b...)
	return append(out, ']')
}

func reqMsg(sub string, f nostr.Filter) []byte {
	fb, _ := f.MarshalJSON()
	return []byte(`["REQ",` + jsonString(sub) + `,` + string(fb) + `]`)
}

func closeMsg(sub string) []byte {
	return []byte(`["CLOSE",` + jsonString(sub) + `]`)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// dialMany opens n connections with bounded parallelism, connection i to urls[i % len(urls)].
func dialMany(ctx context.Context, urls []string, mode *authMode, n, par int, mk func(i int) handlers) ([]*client, error) {
	out := make([]*client, n)
	// the first one probes the auth mode alone
	c, err := dial(ctx, urls[0], mode, mk(0))
	if err != nil {
		return nil, err
	}
	out[0] = c
	var firstErr atomic.Value
	var wg sync.WaitGroup
	next := atomic.Int64{}
	next.Store(1)
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || firstErr.Load() != nil {
					return
				}
				var c *client
				var err error
				for try := 0; try < 3; try++ {
					c, err = dial(ctx, urls[i%len(urls)], mode, mk(i))
					if err == nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				if err != nil {
					firstErr.CompareAndSwap(nil, fmt.Errorf("dial %d: %w", i, err))
					return
				}
				out[i] = c
			}
		}()
	}
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		closeAll(out)
		return nil, e.(error)
	}
	return out, nil
}

func closeAll(cs []*client) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for _, c := range cs {
		if c == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			c.close()
			<-sem
		}()
	}
	wg.Wait()
}

func isAuthRequired(reason string) bool { return strings.HasPrefix(reason, "auth-required") }
