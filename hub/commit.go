package hub

import (
	"log/slog"
	"sync"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// publishView applies the view changes of a commit, in order, to a copy of
// the current view and publishes it. It runs on the store's writer goroutine
// before the commit's OKs and fan-out, so a later event is never judged
// against an older view (a removed member never gets the next message); it
// costs map copies of what changed, never SQL.
func (h *Hub) publishView(ds []delta) {
	if len(ds) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.view == nil {
		return // replay --verify keeps no view
	}
	e := newViewEdit(h.view)
	for _, d := range ds {
		d(e)
	}
	h.view = e.next
}

// rememberChannels caches the channel the store recorded for each committed
// reaction and deletion without an h (one query per commit that has any), so
// judging them for live delivery, under the relay's subscription lock, needs
// no query.
func (h *Hub) rememberChannels(evs []*nostr.Event) {
	var ids []string
	for _, ev := range evs {
		if (ev.Kind == kinds.Reaction || ev.Kind == kinds.Deletion) && ev.Tags.Find("h") == nil {
			ids = append(ids, ev.ID)
		}
	}
	if len(ids) == 0 || h.Store == nil {
		return
	}
	chans, err := store.StoredChannels(h.Store.Reader(), ids)
	if err != nil {
		h.log.Warn("caching the channels of committed events", "err", err)
		return
	}
	for id, ch := range chans {
		h.targets.put(id, ch)
	}
}

// afterCommit hands the connections a removal or revocation cut off to the
// kicker goroutine: closing a connection writes to its socket and must not
// hold up the writer.
func (h *Hub) afterCommit(evs []*nostr.Event) {
	for _, ev := range evs {
		switch ev.Kind {
		case kinds.HubMemberRemove:
			gone, reason := tagValue(ev, "p"), "restricted: removed from the hub"
			if ev.PubKey == h.keys.PublicHex { // the hub signs an 8001 only for a leave request (join.go)
				reason = "restricted: you left the hub"
			}
			h.kicks.add(kick{
				reason: reason,
				match:  func(c *relay.Conn) bool { return c.PubKey() == gone || c.Owner() == gone },
				msg:    "hub member removed", attrs: []any{"pubkey", gone},
			})
		case kinds.AgentRevocation:
			owner, agent, _, err := identity.ParseRevocation(ev)
			if err != nil {
				continue
			}
			h.kicks.add(kick{
				reason: "restricted: attestation revoked by its owner",
				match:  func(c *relay.Conn) bool { return c.PubKey() == agent && c.Owner() == owner },
				msg:    "agent revoked", attrs: []any{"agent", agent, "owner", owner},
			})
		}
	}
}

// kick closes every connection match selects, or the one connection conn.
type kick struct {
	reason string
	match  func(c *relay.Conn) bool
	conn   *relay.Conn
	msg    string // logged with attrs and the number of connections closed
	attrs  []any
}

// kicker is the hub's goroutine for kicks, fed without blocking.
type kicker struct {
	relay *relay.Relay
	log   *slog.Logger

	mu   sync.Mutex
	jobs []kick
	wake chan struct{} // capacity 1: "there is work"
	quit chan struct{}
	done chan struct{}
}

// newKicker makes a kicker that queues kicks until start; the hub makes it
// before opening the log, whose writer may commit (and so kick) at once.
func newKicker(log *slog.Logger) *kicker {
	return &kicker{log: log, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
}

// start runs the goroutine against the relay; kicks queued before it run
// then.
func (k *kicker) start(r *relay.Relay) {
	k.relay = r
	go k.run()
}

// add queues a kick; it never blocks.
func (k *kicker) add(j kick) {
	k.mu.Lock()
	k.jobs = append(k.jobs, j)
	k.mu.Unlock()
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

func (k *kicker) run() {
	defer close(k.done)
	for {
		select {
		case <-k.quit:
			return
		case <-k.wake:
		}
		k.mu.Lock()
		jobs := k.jobs
		k.jobs = nil
		k.mu.Unlock()
		for _, j := range jobs {
			if j.conn != nil {
				if j.conn.Context().Err() == nil {
					k.relay.KickConn(j.conn, j.reason)
					k.log.Info(j.msg, j.attrs...)
				}
				continue
			}
			n := k.relay.Kick(j.reason, j.match)
			k.log.Info(j.msg, append(j.attrs, "connections_closed", n)...)
		}
	}
}

// stop ends the goroutine; kicks still queued are dropped (the relay is
// closed by then, and with it every connection).
func (k *kicker) stop() {
	if k == nil || k.relay == nil { // never started
		return
	}
	close(k.quit)
	<-k.done
}
