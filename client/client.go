// Package client is the one way Go code talks to a hive hub: it connects as
// one key over ws or wss (optionally checking a TLS pin), answers the NIP-42
// challenge (with an owner's NIP-OA tag for agents and devices), publishes and
// waits for OK, and keeps live subscriptions across reconnects: jittered
// backoff, re-AUTH, resubscribe with since = last seen minus a margin,
// duplicates dropped by id; a live subscription's queue for a slow reader is
// bounded, and past its bounds it catches up from the hub's log instead
// (lag.go). Events given to it are never modified.
package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Options configure a Client. Only URLs and Keys are required.
type Options struct {
	URLs    []string      // hub URLs (ws:// or wss://), tried in order at each (re)connect
	Keys    identity.Keys // the key to authenticate and sign as
	AuthTag nostr.Tag     // the owner's NIP-OA auth tag, for an agent or device key
	Pin     string        // sha256/<base64> SPKI pin of the hub's certificate; empty: system CAs
	// Invite, when set, is a NIP-43 invite claim: a key the hub does not
	// admit yet sends it in a join request after AUTH and is a member from
	// then on (invite.go).
	Invite string

	MinBackoff   time.Duration // first reconnect delay (default 250 ms); doubles up to MaxBackoff
	MaxBackoff   time.Duration // default 5 s
	SkewMargin   time.Duration // resubscribe from last seen created_at minus this (default 10 s)
	PingInterval time.Duration // client pings; a connection silent for 3 intervals is dropped (default 10 s)
	Timeout      time.Duration // dial, AUTH and single write timeout (default 10 s)
	Log          *slog.Logger  // default: discard

	// OnReconnect, when set, is called after each reconnection once every
	// live subscription has been sent again on it (the bridge checks its
	// subscriptions still deliver, and tells its watchers, in its status).
	OnReconnect func()

	// MaxQueuedEvents and MaxQueuedBytes bound what a live subscription
	// holds for a reader that has not taken it yet (defaults
	// DefaultMaxQueuedEvents, DefaultMaxQueuedBytes). Past either, the
	// subscription drops its queue and catches up from the hub's log at the
	// reader's pace (Subscription, lag.go): memory stays bounded and no
	// stored event is lost or repeated.
	MaxQueuedEvents int
	MaxQueuedBytes  int

	// ProfileCache keeps the kind 0 profiles LoadNames fetched for this long
	// and answers later LoadNames from them (0: ask the hub every time). For
	// a long-lived reader whose names may lag by that much (hive mcp).
	ProfileCache time.Duration
}

func (o *Options) defaults() {
	set := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	set(&o.MinBackoff, 250*time.Millisecond)
	set(&o.MaxBackoff, 5*time.Second)
	set(&o.SkewMargin, 10*time.Second)
	set(&o.PingInterval, 10*time.Second)
	set(&o.Timeout, 10*time.Second)
	if o.MaxQueuedEvents <= 0 {
		o.MaxQueuedEvents = DefaultMaxQueuedEvents
	}
	if o.MaxQueuedBytes <= 0 {
		o.MaxQueuedBytes = DefaultMaxQueuedBytes
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// Client is a connection to a hub that reconnects by itself until Close.
// Its methods are safe for concurrent use.
type Client struct {
	opts Options
	keys identity.Keys
	tls  *tls.Config

	mu      sync.Mutex
	cur     *conn         // nil while disconnected
	up      chan struct{} // closed when cur is set
	failed  error         // set when reconnecting cannot succeed (AUTH refused, pin mismatch)
	retry   ConnState     // while disconnected: the reconnect loop's progress
	subs    map[string]*Subscription
	nextSub uint64

	lost chan struct{} // a connection ended
	done chan struct{} // closed by Close or when reconnecting gives up
	quit sync.Once
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup

	stamps kinds.Stamper // times of the events Sign dates

	profiles profileCache // Options.ProfileCache
}

// Dial connects to url and authenticates as keys; authTag, if not nil, is the
// owner's NIP-OA tag that admits an agent or device key.
func Dial(ctx context.Context, url string, keys identity.Keys, authTag nostr.Tag) (*Client, error) {
	return Connect(ctx, Options{URLs: []string{url}, Keys: keys, AuthTag: authTag})
}

// Connect makes the first connection (trying each URL in turn) and
// authenticates; from then on the client reconnects by itself until Close.
func Connect(ctx context.Context, opts Options) (*Client, error) {
	opts.defaults()
	if len(opts.URLs) == 0 {
		return nil, wrap(ErrInvalid, errors.New("no hub URL: give --hub URL or a profile"))
	}
	if opts.Keys.SecretHex == "" {
		return nil, wrap(ErrInvalid, errors.New("no key: give --key FILE or a profile"))
	}
	for _, u := range opts.URLs {
		if err := CheckHubURL(u); err != nil {
			return nil, err
		}
	}
	tc, err := tlspin.ClientConfig(opts.Pin)
	if err != nil {
		return nil, wrap(ErrInvalid, err)
	}
	c := &Client{
		opts: opts, keys: opts.Keys, tls: tc,
		up:   make(chan struct{}),
		subs: map[string]*Subscription{},
		lost: make(chan struct{}, 1),
		done: make(chan struct{}),
		stop: make(chan struct{}),
	}
	c.opts.Keys = identity.Keys{} // the secret lives in c.keys only
	cn, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	c.install(cn)
	c.wg.Add(1)
	go c.reconnectLoop()
	return c, nil
}

// PublicKey is the hex public key the client signs and authenticates as.
func (c *Client) PublicKey() string { return c.keys.PublicHex }

// Npub is the client's public key in NIP-19 form.
func (c *Client) Npub() string { return c.keys.Npub() }

// URL is the hub URL of the current connection, or "" while disconnected.
func (c *Client) URL() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return ""
	}
	return c.cur.url
}

// Done is closed when the client ends: Close, or a reconnection refused for
// good (AUTH refused, pin mismatch; Err says which).
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the client gave up reconnecting, or nil.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// Close ends the connection and every subscription, and stops reconnecting.
func (c *Client) Close() {
	c.once.Do(func() {
		c.quit.Do(func() { close(c.done) })
		close(c.stop)
		c.mu.Lock()
		cn := c.cur
		subs := c.subs
		c.subs = map[string]*Subscription{}
		c.mu.Unlock()
		if cn != nil {
			cn.close()
		}
		for _, s := range subs {
			s.end(ErrClosed)
			s.stopPump()
		}
		c.wg.Wait()
	})
}

// install makes cn the current connection and sends it every live subscription.
func (c *Client) install(cn *conn) {
	c.mu.Lock()
	c.cur = cn
	close(c.up)
	subs := make([]*Subscription, 0, len(c.subs))
	for _, s := range c.subs {
		subs = append(subs, s)
	}
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		cn.readLoop(c)
		c.mu.Lock()
		if c.cur == cn {
			c.cur = nil
			c.up = make(chan struct{})
		}
		c.mu.Unlock()
		select {
		case c.lost <- struct{}{}:
		default:
		}
	}()
	for _, s := range subs {
		s.resubscribe(cn)
	}
}

// reinstall is install after a reconnect: it tells OnReconnect.
func (c *Client) reinstall(cn *conn) {
	c.install(cn)
	if c.opts.OnReconnect != nil {
		c.opts.OnReconnect()
	}
}

// reconnectLoop waits for the connection to end and makes a new one, with
// jittered exponential backoff, until Close or a refusal that retrying cannot cure.
func (c *Client) reconnectLoop() {
	defer c.wg.Done()
	for {
		select {
		case <-c.stop:
			return
		case <-c.lost:
		}
		backoff := c.opts.MinBackoff
		for {
			// full jitter in [backoff/2, backoff)
			d := backoff/2 + time.Duration(rand.Int64N(int64(backoff/2)+1))
			c.setRetry(func(r *ConnState) { r.NextTry, r.Connecting = time.Now().Add(d), false })
			select {
			case <-c.stop:
				return
			case <-time.After(d):
			}
			c.setRetry(func(r *ConnState) { r.Connecting = true })
			ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
			cn, err := c.connect(ctx)
			cancel()
			c.setRetry(func(r *ConnState) { r.Connecting, r.LastErr = false, err; r.Attempts++ })
			if err == nil {
				c.setRetry(func(r *ConnState) { *r = ConnState{} })
				c.opts.Log.Info("reconnected", "url", cn.url)
				c.reinstall(cn)
				break
			}
			c.opts.Log.Warn("reconnect failed", "err", err, "retry_in", backoff)
			if errors.Is(err, ErrAuth) {
				c.fail(err)
				return
			}
			backoff = min(backoff*2, c.opts.MaxBackoff)
		}
	}
}

// fail ends every subscription with err and makes later calls return it.
func (c *Client) fail(err error) {
	c.mu.Lock()
	c.failed = err
	subs := c.subs
	c.subs = map[string]*Subscription{}
	up := c.up
	c.mu.Unlock()
	select {
	case <-up:
	default:
		close(up) // wake waiters so they see failed
	}
	for _, s := range subs {
		s.end(err)
	}
	c.quit.Do(func() { close(c.done) })
}

// current waits until a connection is up and returns it.
func (c *Client) current(ctx context.Context) (*conn, error) {
	for {
		c.mu.Lock()
		cn, up, failed := c.cur, c.up, c.failed
		c.mu.Unlock()
		switch {
		case failed != nil:
			return nil, failed
		case cn != nil:
			return cn, nil
		}
		select {
		case <-up:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.stop:
			return nil, ErrClosed
		}
	}
}

// Sign returns a signed copy of ev: the client's pubkey, created_at now if
// unset (with the ms tag for a timeline kind: spec/chat.md), empty tags if
// nil. An event that already has a signature is returned as a copy,
// unchanged. ev itself is never modified.
func (c *Client) Sign(ev nostr.Event) (nostr.Event, error) {
	out := copyEvent(ev)
	if out.Sig != "" {
		return out, nil
	}
	if out.CreatedAt == 0 {
		c.stamp(&out)
	}
	if err := out.Sign(c.keys.SecretHex); err != nil {
		return out, wrap(ErrInvalid, err)
	}
	return out, nil
}

func copyEvent(ev nostr.Event) nostr.Event {
	tags := make(nostr.Tags, len(ev.Tags))
	for i, t := range ev.Tags {
		tags[i] = append(nostr.Tag(nil), t...)
	}
	ev.Tags = tags
	return ev
}

// Publish signs ev if it is unsigned (see Sign), sends it and waits for the
// hub's OK. If the connection is lost before the OK, it sends the same signed
// event again on the next connection (same id, so the hub stores it once). If
// ctx ends after the event was sent and no OK came, the error wraps
// ErrDeliveryUnknown; publishing the returned event again is safe.
func (c *Client) Publish(ctx context.Context, ev nostr.Event) (nostr.Event, error) {
	signed, _, err := c.PublishOnce(ctx, ev)
	return signed, err
}

// PublishOnce is Publish that also tells whether the hub had the event
// already (its OK said duplicate:): a deterministic event, such as a
// workflow run's claim, is new exactly once.
func (c *Client) PublishOnce(ctx context.Context, ev nostr.Event) (nostr.Event, bool, error) {
	signed, err := c.Sign(ev)
	if err != nil {
		return signed, false, err
	}
	sent := false
	for {
		cn, err := c.current(ctx)
		if err != nil {
			if sent {
				return signed, false, wrap(ErrDeliveryUnknown, fmt.Errorf("event %s was sent but no OK came (%v): it may be stored; sending it again is safe", signed.ID, err))
			}
			if errors.Is(err, ErrAuth) || errors.Is(err, ErrClosed) {
				return signed, false, err
			}
			return signed, false, wrap(ErrUnreachable, fmt.Errorf("hub unreachable, event %s not sent: %w", signed.ID, err))
		}
		ok, cancel := cn.expectOK(signed.ID)
		werr := cn.write(c.opts.Timeout, []any{"EVENT", signed})
		sent = true // even a failed write may have reached the hub
		if werr != nil {
			cancel()
			cn.close()
			continue
		}
		select {
		case r := <-ok:
			if r.ok {
				return signed, strings.HasPrefix(r.msg, "duplicate:"), nil
			}
			return signed, false, refusal(r.msg)
		case <-cn.dead:
			cancel()
		case <-ctx.Done():
			cancel()
			return signed, false, wrap(ErrDeliveryUnknown, fmt.Errorf("event %s was sent but no OK came (%v): it may be stored; sending it again is safe", signed.ID, ctx.Err()))
		case <-c.stop:
			cancel()
			return signed, false, wrap(ErrDeliveryUnknown, fmt.Errorf("event %s: client closed before the OK", signed.ID))
		}
	}
}
