package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/ainb/hive/client/tlspin"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// conn is one authenticated websocket connection.
type conn struct {
	ws   *websocket.Conn
	url  string
	wmu  sync.Mutex    // one writer at a time
	dead chan struct{} // closed when the read loop ends

	mu  sync.Mutex
	oks map[string][]chan okResult // publishes waiting for OK, by event id
}

type okResult struct {
	ok  bool
	msg string
}

// connect dials the hub's URLs in order and authenticates on the first that answers.
func (c *Client) connect(ctx context.Context) (*conn, error) {
	var errs []error
	for _, url := range c.opts.URLs {
		cn, err := c.dialOne(ctx, url)
		if err == nil {
			return cn, nil
		}
		if errors.Is(err, ErrAuth) {
			return nil, err // the hub answered and said no: another URL of it would too
		}
		errs = append(errs, err)
	}
	if len(errs) == 1 && errors.Is(errs[0], ErrInvalid) {
		return nil, errs[0] // the one URL is wrong (the other scheme): not a network failure
	}
	return nil, wrap(ErrUnreachable, errors.Join(errs...))
}

func (c *Client) dialOne(ctx context.Context, url string) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	d := websocket.Dialer{TLSClientConfig: c.tls, HandshakeTimeout: c.opts.Timeout, Proxy: http.ProxyFromEnvironment}
	ws, resp, err := d.DialContext(ctx, url, nil)
	if err != nil {
		var mm *tlspin.MismatchError
		if errors.As(err, &mm) {
			return nil, wrap(ErrAuth, mm)
		}
		if e := schemeMismatch(url, resp, err); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("connecting to %s: %w", url, err)
	}
	ws.SetReadLimit(16 << 20)
	cn := &conn{ws: ws, url: url, dead: make(chan struct{}), oks: map[string][]chan okResult{}}
	c.setRetry(func(r *ConnState) { r.Authenticating = true })
	defer c.setRetry(func(r *ConnState) { r.Authenticating = false })
	if err := c.authenticate(ctx, cn); err != nil {
		ws.Close()
		return nil, err
	}
	return cn, nil
}

// authenticate waits for the hub's NIP-42 challenge and answers it.
func (c *Client) authenticate(ctx context.Context, cn *conn) error {
	deadline, _ := ctx.Deadline()
	cn.ws.SetReadDeadline(deadline)
	defer cn.ws.SetReadDeadline(time.Time{})
	var authID string
	for {
		_, b, err := cn.ws.ReadMessage()
		if err != nil {
			if authID == "" {
				return fmt.Errorf("%s: no NIP-42 challenge from the hub: %w", cn.url, err)
			}
			return fmt.Errorf("%s: no answer to AUTH: %w", cn.url, err)
		}
		var msg []json.RawMessage
		if json.Unmarshal(b, &msg) != nil || len(msg) < 2 {
			continue
		}
		switch label(msg[0]) {
		case "AUTH":
			if authID != "" {
				continue
			}
			ev, err := c.Sign(AuthEvent(cn.url, label(msg[1]), c.opts.AuthTag))
			if err != nil {
				return err
			}
			authID = ev.ID
			if err := cn.write(c.opts.Timeout, []any{"AUTH", ev}); err != nil {
				return fmt.Errorf("%s: sending AUTH: %w", cn.url, err)
			}
		case "OK":
			if len(msg) < 4 || label(msg[1]) != authID || authID == "" {
				continue
			}
			reason := label(msg[3])
			if string(msg[2]) == "true" && !isGuest(reason) {
				return nil
			}
			if string(msg[2]) == "true" && c.opts.Invite != "" {
				return c.join(cn, authID)
			}
			return wrap(ErrAuth, &AuthRefusedError{Npub: c.keys.Npub(), URL: cn.url, Reason: reason})
		}
	}
}

func label(m json.RawMessage) string {
	var s string
	json.Unmarshal(m, &s)
	return s
}

// write sends one message, with a deadline.
func (cn *conn) write(timeout time.Duration, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	cn.ws.SetWriteDeadline(time.Now().Add(timeout))
	return cn.ws.WriteMessage(websocket.TextMessage, b)
}

func (cn *conn) close() { cn.ws.Close() }

// expectOK registers a wait for the OK of id; cancel drops it.
func (cn *conn) expectOK(id string) (<-chan okResult, func()) {
	ch := make(chan okResult, 1)
	cn.mu.Lock()
	cn.oks[id] = append(cn.oks[id], ch)
	cn.mu.Unlock()
	return ch, func() {
		cn.mu.Lock()
		defer cn.mu.Unlock()
		for i, w := range cn.oks[id] {
			if w == ch {
				cn.oks[id] = append(cn.oks[id][:i], cn.oks[id][i+1:]...)
				break
			}
		}
		if len(cn.oks[id]) == 0 {
			delete(cn.oks, id)
		}
	}
}

// readLoop reads until the connection fails, dispatching OKs and subscription
// messages, and pings the hub so that a silent link is noticed.
func (cn *conn) readLoop(c *Client) {
	defer close(cn.dead)
	defer cn.ws.Close()
	idle := 3 * c.opts.PingInterval
	cn.ws.SetReadDeadline(time.Now().Add(idle))
	cn.ws.SetPongHandler(func(string) error { return cn.ws.SetReadDeadline(time.Now().Add(idle)) })
	stopPing := make(chan struct{})
	defer close(stopPing)
	go func() {
		t := time.NewTicker(c.opts.PingInterval)
		defer t.Stop()
		for {
			select {
			case <-stopPing:
				return
			case <-t.C:
				cn.wmu.Lock()
				err := cn.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.opts.Timeout))
				cn.wmu.Unlock()
				if err != nil {
					cn.ws.Close()
					return
				}
			}
		}
	}()
	for {
		_, b, err := cn.ws.ReadMessage()
		if err != nil {
			c.opts.Log.Debug("connection ended", "url", cn.url, "err", err)
			return
		}
		cn.ws.SetReadDeadline(time.Now().Add(idle))
		var msg []json.RawMessage
		if json.Unmarshal(b, &msg) != nil || len(msg) < 2 {
			continue
		}
		switch label(msg[0]) {
		case "OK":
			if len(msg) < 4 {
				continue
			}
			id := label(msg[1])
			cn.mu.Lock()
			ws := cn.oks[id]
			delete(cn.oks, id)
			cn.mu.Unlock()
			for _, w := range ws {
				w <- okResult{ok: string(msg[2]) == "true", msg: label(msg[3])}
			}
		case "EVENT":
			if len(msg) < 3 {
				continue
			}
			var ev nostr.Event
			if json.Unmarshal(msg[2], &ev) != nil {
				continue
			}
			if s := c.sub(label(msg[1])); s != nil {
				s.add(ev)
			}
		case "EOSE":
			if s := c.sub(label(msg[1])); s != nil {
				s.storedDone()
			}
		case "CLOSED":
			if s := c.sub(label(msg[1])); s != nil && len(msg) > 2 {
				c.dropSub(s)
				s.end(refusal(label(msg[2])))
			}
		case "NOTICE":
			c.opts.Log.Info("hub notice", "url", cn.url, "msg", label(msg[1]))
		}
	}
}
