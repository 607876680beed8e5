package client_test

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/nbd-wtf/go-nostr"
)

// testHub is the real closed hub (hub.Open, as hive serve runs it) on
// 127.0.0.1 over a real SQLite file; restart keeps its address and log.
type testHub struct {
	t     *testing.T
	addr  string
	URL   string
	db    string
	admin identity.Keys
	keys  identity.Keys
	tls   *tls.Config
	extra []string

	mu  sync.Mutex
	h   *hub.Hub
	srv *http.Server
}

func startHub(t *testing.T, tc *tls.Config, extraURLs ...string) *testHub {
	t.Helper()
	admin, _ := identity.GenerateKeys()
	hk, _ := identity.GenerateKeys()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	scheme := "ws://"
	if tc != nil {
		scheme = "wss://"
	}
	th := &testHub{t: t, extra: extraURLs, addr: ln.Addr().String(), db: filepath.Join(t.TempDir(), "hive.db"), admin: admin, keys: hk, tls: tc}
	th.URL = scheme + th.addr
	th.serve(ln)
	t.Cleanup(th.stop)
	return th
}

func (th *testHub) serve(ln net.Listener) {
	path := th.db
	h, err := hub.Open(hub.Config{OpenStore: func(o store.Options) (store.Log, error) { return sqlite.Open(path, o) }, Admin: th.admin.PublicHex, Keys: th.keys,
		Relay: relay.Config{PublicURLs: append([]string{th.URL}, th.extra...)}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		th.t.Fatal(err)
	}
	srv := &http.Server{Handler: h.Relay, TLSConfig: th.tls, ErrorLog: nil}
	if th.tls != nil {
		go srv.ServeTLS(ln, "", "")
	} else {
		go srv.Serve(ln)
	}
	th.mu.Lock()
	th.h, th.srv = h, srv
	th.mu.Unlock()
}

func (th *testHub) stop() {
	th.mu.Lock()
	defer th.mu.Unlock()
	if th.srv != nil {
		th.srv.Close()
		th.h.Close()
		th.srv, th.h = nil, nil
	}
}

// restart stops the hub, waits d, and starts it again on the same address.
func (th *testHub) restart(d time.Duration) {
	th.stop()
	// bare sleep: the hub stays down for d, the outage the caller asks for
	time.Sleep(d)
	ln, err := net.Listen("tcp", th.addr)
	if err != nil {
		th.t.Fatal(err)
	}
	th.serve(ln)
}

// kickAll closes every client connection, as a network blip would.
func (th *testHub) kickAll() int {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.h.Relay.Kick("test: blip", func(*relay.Conn) bool { return true })
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func connect(t *testing.T, url string, k identity.Keys, opts client.Options) *client.Client {
	t.Helper()
	opts.URLs = append([]string{url}, opts.URLs...)
	opts.Keys = k
	if opts.MinBackoff == 0 {
		opts.MinBackoff = 50 * time.Millisecond
	}
	c, err := client.Connect(ctxT(t, 10*time.Second), opts)
	if err != nil {
		t.Fatalf("connect as %s: %v", k.Npub(), err)
	}
	t.Cleanup(c.Close)
	return c
}

func newKeys(t *testing.T) identity.Keys {
	k, err := identity.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// member adds a new key to the hub as admin and returns it.
func (th *testHub) member(t *testing.T, admin *client.Client) identity.Keys {
	t.Helper()
	k := newKeys(t)
	if _, err := admin.Publish(ctxT(t, 5*time.Second), client.MemberAdd(k.PublicHex)); err != nil {
		t.Fatal(err)
	}
	return k
}

// proxy forwards TCP to target; while blackholed it forwards nothing from
// the hub to the client (the hub still receives what the client sends).
type proxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	drop    bool
	dropped int // reads from the hub dropped while blackholed
	conns   []net.Conn
}

// startProxy listens at once; run starts forwarding to target.
func startProxy(t *testing.T) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	t.Cleanup(func() { ln.Close(); p.cut() })
	return p
}

func (p *proxy) run(target string) {
	p.target = target
	go func() {
		for {
			c, err := p.ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := up.Read(buf)
					if err != nil {
						c.Close()
						return
					}
					p.mu.Lock()
					drop := p.drop
					if drop {
						p.dropped++
					}
					p.mu.Unlock()
					if !drop {
						c.Write(buf[:n])
					}
				}
			}()
		}
	}()
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) blackhole(on bool) {
	p.mu.Lock()
	p.drop = on
	p.mu.Unlock()
}

// droppedReads is how many reads from the hub the blackhole dropped.
func (p *proxy) droppedReads() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

// cut closes every proxied connection.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// nextOf waits up to within for sub's next event; false when none came (the
// subscription ending fails the test).
func nextOf(t *testing.T, sub *client.Subscription, within time.Duration) (nostr.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-sub.Events():
		if !ok {
			t.Fatalf("subscription ended: %v", sub.Err())
		}
		return ev, true
	case <-time.After(within):
		return nostr.Event{}, false
	}
}

// mustNext is nextOf that fails the test when nothing came.
func mustNext(t *testing.T, sub *client.Subscription, within time.Duration) nostr.Event {
	t.Helper()
	ev, ok := nextOf(t, sub, within)
	if !ok {
		t.Fatalf("nothing delivered within %v", within)
	}
	return ev
}

// startHubAdmin starts a hub (startHub without TLS) and connects its admin.
func startHubAdmin(t *testing.T) (*testHub, *client.Client) {
	t.Helper()
	th := startHub(t, nil)
	return th, connect(t, th.URL, th.admin, client.Options{})
}

// mustPublish publishes ev as c and fails the test if the hub refuses it.
func mustPublish(t *testing.T, ctx context.Context, c *client.Client, ev nostr.Event) nostr.Event {
	t.Helper()
	out, err := c.Publish(ctx, ev)
	if err != nil {
		t.Fatalf("publish kind %d: %v", ev.Kind, err)
	}
	return out
}

// liveReader creates the open channel c as admin, connects a new member
// with opts and subscribes it to c's messages (from since, if not nil); the
// subscription has had its EOSE.
func (th *testHub) liveReader(t *testing.T, ctx context.Context, admin *client.Client, opts client.Options, since *nostr.Timestamp) (*client.Client, *client.Subscription) {
	t.Helper()
	mustPublish(t, ctx, admin, client.ChannelCreate("c", "c", client.Open))
	reader := connect(t, th.URL, th.member(t, admin), opts)
	sub, err := reader.Subscribe(ctx, nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"c"}}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	<-sub.EOSE()
	return reader, sub
}
