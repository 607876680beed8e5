// Package relay is hive's websocket hub: NIP-01 over gorilla/websocket, with
// NIP-11, NIP-42, NIP-45 and policies as hook slices in the style of khatru.
package relay

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/ainb/hive/store"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// Config holds the hub's limits. Zero values take the defaults; all of them are
// advertised in the NIP-11 document.
type Config struct {
	Name        string
	Description string
	Icon        string // NIP-11 icon URL ("" leaves it out)
	PubKey      string // NIP-11 pubkey: whom to contact about the hub (its admin)
	Self        string // NIP-11 self: the hub's own key, which signs its state events
	Version     string // NIP-11 version of the software (default "devel")
	// SupportedNIPs is NIP-11's supported_nips: what the hub built on this
	// relay implements (default: the relay's own 1, 9, 11, 40, 42, 45, 50).
	SupportedNIPs []int
	PublicURLs    []string // ws:// or wss:// URLs clients use; NIP-42 relay tags must match one
	RequireAuth   bool     // NIP-42: refuse REQ, EVENT and COUNT before AUTH

	MaxMessageBytes  int           // largest client message (default 256 KiB)
	MaxSubscriptions int           // open REQs per connection (default 32)
	MaxFilters       int           // filters per REQ or COUNT (default 16)
	MaxSubIDLength   int           // default 64
	MaxFilterValues  int           // ids, authors, kinds and tag values in one filter (default 1000)
	MaxEventTags     int           // default 2500
	MaxContentBytes  int           // default 128 KiB
	MaxFutureSkew    time.Duration // how far created_at may be ahead of now (default 15 min)
	MaxInflight      int           // EVENTs awaiting commit per connection (default 256)
	MaxQueued        int           // messages read but not yet handled per connection (default 64)
	MaxOutboundBytes int           // queued outbound bytes before a slow consumer is dropped (default 4 MiB)
	WriteTimeout     time.Duration // default 10 s
	PingInterval     time.Duration // default 30 s; a peer silent for 3 intervals is dropped
	AuthWindow       time.Duration // NIP-42 created_at tolerance (default 60 s)
	AuthTimeout      time.Duration // with RequireAuth, close connections not authenticated by then (default 60 s)
	ReadBufferBytes  int           // read buffer lent to a connection while it reads (default 512 B; larger messages take more reads)

	// The budget of a connection that has not authenticated (with RequireAuth):
	// it can cost the hub little more than its socket until it does.
	MaxUnauthMessageBytes int     // largest message before AUTH (default 16 KiB)
	UnauthBurst           int     // messages a connection may send before AUTH at once (default 64: a NIP-29 client's opening burst)
	UnauthRate            float64 // and then per second (default 2)
	MaxUnauthConns        int     // concurrent unauthenticated connections (default 1,024)
	MaxUnauthPerAddr      int     // of them from one source address (default 128)

	// Before the websocket upgrade (pending.go; with ConnState as the HTTP
	// server's hook).
	MaxPendingConns   int           // connections not upgraded yet (default 1,024)
	MaxPendingPerAddr int           // of them from one source address (default 64)
	HeaderTimeout     time.Duration // to finish the TLS handshake and the request headers (default 5 s)

	// What one member may cost, its agents and devices included (members.go).
	MaxConnsPerMember int // authenticated connections (default 64)
	MaxMemberQueued   int // outbound bytes queued on them (default 16 MiB)
	MaxMemberReads    int // stored pages read and sent at once (default 2)
}

// Defaults returns the configuration with every default applied.
func Defaults() Config {
	var c Config
	c.defaults()
	return c
}

// orDefault sets *v to d where it is zero or negative: what "unset" means for
// every number of Config.
func orDefault[T int | float64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

func (c *Config) defaults() {
	orDefault(&c.MaxMessageBytes, 256<<10)
	orDefault(&c.MaxSubscriptions, 32)
	orDefault(&c.MaxFilters, 16)
	orDefault(&c.MaxSubIDLength, 64)
	orDefault(&c.MaxFilterValues, 1000)
	orDefault(&c.MaxEventTags, 2500)
	orDefault(&c.MaxContentBytes, 128<<10)
	orDefault(&c.MaxInflight, 256)
	orDefault(&c.MaxQueued, 64)
	orDefault(&c.MaxOutboundBytes, 4<<20)
	orDefault(&c.ReadBufferBytes, 512)
	orDefault(&c.MaxUnauthMessageBytes, 16<<10)
	orDefault(&c.UnauthBurst, 64)
	orDefault(&c.MaxUnauthConns, 1024)
	orDefault(&c.MaxUnauthPerAddr, 128)
	orDefault(&c.MaxPendingConns, 1024)
	orDefault(&c.MaxPendingPerAddr, 64)
	orDefault(&c.MaxConnsPerMember, 64)
	orDefault(&c.MaxMemberQueued, 16<<20)
	orDefault(&c.MaxMemberReads, 2)
	orDefault(&c.UnauthRate, 2)
	orDefault(&c.MaxFutureSkew, 15*time.Minute)
	orDefault(&c.WriteTimeout, 10*time.Second)
	orDefault(&c.PingInterval, 30*time.Second)
	orDefault(&c.AuthWindow, 60*time.Second)
	orDefault(&c.AuthTimeout, 60*time.Second)
	orDefault(&c.HeaderTimeout, 5*time.Second)
	if c.Name == "" {
		c.Name = "hive"
	}
	if c.Version == "" {
		c.Version = "devel"
	}
	if c.SupportedNIPs == nil {
		c.SupportedNIPs = []int{1, 9, 11, 40, 42, 45, 50}
	}
}

// Hooks are policy slices. Each runs in order; the first refusal wins. A refusal
// is a message that starts with a NIP-01 prefix ("restricted: ...").
type Hooks struct {
	// RejectEvent vets an EVENT after signature checks and before it is stored or relayed.
	RejectEvent []func(ctx context.Context, c *Conn, ev *nostr.Event) string
	// RejectFilter vets each filter of a REQ or COUNT; a refusal closes the whole request.
	RejectFilter []func(ctx context.Context, c *Conn, f nostr.Filter) string
	// CanRead decides, event by event, whether c may receive ev, for stored
	// and live reads: one rule for both. A stored read's rows are not decoded
	// (ev.Event is nil; ev.Tagged decodes one when the rule needs its tags),
	// a live event is (store.Live).
	CanRead []func(c *Conn, ev *store.Stored) bool
	// Audience, when set, is CanRead for one live event and many
	// subscribers: called once per event (per goroutine delivering it), it
	// returns the judge of each subscriber's connection, which must answer
	// as CanRead does; it lets the rule find the event's part once. Unset,
	// the fan-out asks CanRead for every subscriber.
	Audience func(ev *store.Stored) func(c *Conn) bool
	// ReadScope narrows c's stored reads (REQ and COUNT) inside the query, so
	// limits and counts cover readable events only; nil reads everything.
	// CanRead still checks every row it returns.
	ReadScope func(c *Conn) *store.Scope
	// Admit decides whether a NIP-42-verified pubkey may use the hub. Returns a refusal or "".
	Admit []func(ctx context.Context, c *Conn, auth *nostr.Event) string
	// Join judges NIP-43 join requests (kind 28934); with it set, a key the
	// Admit hooks refuse after calling AllowGuest stays on as a guest
	// (guest.go). nil: 28934 is an ordinary ephemeral kind.
	Join JoinHook
	// Invite answers REQs for kind 28935 alone (NIP-43 invite claims).
	Invite InviteHook
	// Relayed runs after an ephemeral event (never stored) was handed to this
	// relay's live subscribers, on the connection's goroutine: keep it short.
	Relayed []func(ev *nostr.Event)
	// Committed runs after an event and the events derived from it are committed,
	// before the OK and the fan-out, from the store's writer goroutine: keep it short.
	Committed []func(ev *nostr.Event, derived []*nostr.Event)
	// Describe, if set, gives the NIP-11 name, description and icon, from
	// the configured ones (Config.Name, Description, Icon).
	Describe func(name, description, icon string) (string, string, string)
}

// writerGoroutines is the size of the pool that writes to sockets.
const writerGoroutines = 4

var pingFrame = frame(opPing)

// Relay serves the hub. Create it with New; it is an http.Handler.
type Relay struct {
	cfg   Config
	store Log
	log   *slog.Logger
	Hooks Hooks
	// Metrics, if set before serving, receives the relay's counts.
	Metrics Metrics

	upgrader websocket.Upgrader
	subs     *subIndex
	fanout   chan fanItem
	matched  []*subscription // the fan-out goroutine's, reused from event to event
	// the fan-out goroutine's too, for rounds of several events (fanjoin.go)
	joined    []*nostr.Event
	groups    []connFrames
	joinRound uint64
	writers   writerPool
	readers   sync.Pool // *bufio.Reader of ReadBufferBytes, lent to reading connections

	mu      sync.Mutex
	conns   map[*Conn]struct{}
	unauth  unauthSlots
	pending pendingConns
	members memberSet

	stop chan struct{}
	wg   sync.WaitGroup
}

// New builds a relay over st. Call Close to stop it.
func New(cfg Config, st Log, log *slog.Logger) *Relay {
	cfg.defaults()
	if log == nil {
		log = slog.Default()
	}
	r := &Relay{
		cfg:     cfg,
		store:   st,
		log:     log,
		subs:    newSubIndex(),
		fanout:  make(chan fanItem, 4096),
		conns:   make(map[*Conn]struct{}),
		unauth:  unauthSlots{byAddr: make(map[string]int)},
		pending: pendingConns{byConn: make(map[net.Conn]string), byAddr: make(map[string][]net.Conn)},
		members: memberSet{m: make(map[string]*member)},
		stop:    make(chan struct{}),
	}
	r.readers.New = func() any { return bufio.NewReaderSize(nil, cfg.ReadBufferBytes) }
	// The upgrade is gorilla/websocket's; after it the relay reads and
	// writes frames on the socket itself. ReadBufferSize 0 makes gorilla
	// keep net/http's reader and a pool keeps it from allocating a writer:
	// nothing is allocated for buffers the relay never uses.
	r.upgrader = websocket.Upgrader{
		WriteBufferPool: &sync.Pool{},
		CheckOrigin:     func(*http.Request) bool { return true },
	}
	r.wg.Add(2)
	go r.fanoutLoop()
	go r.pingLoop()
	r.startWriters(writerGoroutines)
	return r
}

// Config returns the effective configuration.
func (r *Relay) Config() Config { return r.cfg }

// Store returns the event log the relay writes to.
func (r *Relay) Store() Log { return r.store }

// ServeHTTP answers NIP-11 requests and upgrades websockets.
func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Header.Get("Upgrade") == "" {
		if WantsInfo(req) {
			r.serveInfo(w)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hive hub: connect with a Nostr client over websocket\n"))
		return
	}
	addr := sourceAddr(req)
	if msg := r.takeUnauthSlot(addr); msg != "" {
		r.log.Debug("refused a connection", "addr", addr, "reason", msg)
		w.Header().Set("Retry-After", "10")
		http.Error(w, msg, http.StatusServiceUnavailable)
		return
	}
	ws, err := r.upgrader.Upgrade(w, req, nil)
	if err != nil {
		r.releaseUnauthSlot(addr, r.cfg.RequireAuth)
		return
	}
	c := newConn(r, ws.NetConn(), req, addr)
	r.mu.Lock()
	r.conns[c] = struct{}{}
	r.mu.Unlock()
	// On goroutines of the connection's own, so net/http's goroutine and its
	// buffers for this connection can go.
	c.serveReads()
}

// Broadcast hands ev to live subscribers without storing it; hub-side code uses it
// for events it derived and stored itself.
func (r *Relay) Broadcast(ev *nostr.Event) {
	select {
	case r.fanout <- fanItem{ev: ev}:
	case <-r.stop:
	}
}

// Kick closes every connection for which match is true, sending reason in the
// close frame. It returns how many it closed.
func (r *Relay) Kick(reason string, match func(c *Conn) bool) int {
	var victims []*Conn
	r.mu.Lock()
	for c := range r.conns {
		if match(c) {
			victims = append(victims, c)
		}
	}
	r.mu.Unlock()
	for _, c := range victims {
		c.shutdown(reason)
	}
	if len(victims) > 0 {
		r.metrics().Kicked(reason, len(victims))
	}
	return len(victims)
}

// KickConn closes c with reason in the close frame, as Kick does.
func (r *Relay) KickConn(c *Conn, reason string) {
	if c.ctx.Err() != nil {
		return // closed already
	}
	c.shutdown(reason)
	r.metrics().Kicked(reason, 1)
}

// Connections returns the number of open connections.
func (r *Relay) Connections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}

func (r *Relay) forget(c *Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	c.leaveUnauth()
	r.leaveMember(c)
	r.subs.removeConn(c)
}

// Close drops every connection and stops the relay's goroutines. The store is
// the caller's to close afterwards, so pending writes still commit.
func (r *Relay) Close() {
	select {
	case <-r.stop:
		return
	default:
	}
	close(r.stop)
	r.mu.Lock()
	all := make([]*Conn, 0, len(r.conns))
	for c := range r.conns {
		all = append(all, c)
	}
	r.mu.Unlock()
	for _, c := range all {
		c.shutdown("error: the hub is shutting down")
	}
	r.writers.close()
	r.wg.Wait()
}

func (r *Relay) pingLoop() {
	defer r.wg.Done()
	t := time.NewTicker(r.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		r.mu.Lock()
		all := make([]*Conn, 0, len(r.conns))
		for c := range r.conns {
			all = append(all, c)
		}
		r.mu.Unlock()
		for _, c := range all {
			c.sendControl(pingFrame)
		}
	}
}
