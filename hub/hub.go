// Package hub makes the relay a closed team hub: NIP-42 admission of members
// and of agents their owners attest (NIP-OA), channels with roles, read
// gating on stored and live reads, and hub state kept as projections of the
// event log, updated in the transaction that stores each event.
package hub

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Config wires a hub.
type Config struct {
	// OpenStore opens the log (store/sqlite, store/postgres) with the hub's
	// options (its projector added).
	OpenStore store.Opener
	Admin     string        // hex pubkey of the configured admin, the first member
	Keys      identity.Keys // the hub's own key, signs 39000-39002 and 40099
	Relay     relay.Config
	Store     store.Options
	Log       *slog.Logger
	Now       func() time.Time
	// Invites says who may make NIP-43 invites: members, admins (the
	// default, "") or off (a key that is not a member is refused at AUTH).
	Invites InviteMode
}

// SupportedNIPs are the NIPs a hub implements, as its NIP-11 document lists
// them (spec/protocol.md, "The NIP-11 document").
var SupportedNIPs = []int{1, 9, 11, 29, 40, 42, 43, 45, 50, 70, 86}

// Hub is a running closed hub.
type Hub struct {
	admin   string
	keys    identity.Keys
	invites InviteMode
	log     *slog.Logger
	now     func() time.Time

	Store store.Log
	Relay *relay.Relay

	mu   sync.RWMutex
	view *view

	targets *channelCache
	scopes  scopeCache
	proj    *projector
	kicks   *kicker
	cluster *cluster             // following a log other instances share, if it is
	gated   map[kinds.Gate][]int // stored kind numbers by read gate, from the kinds table
	closing sync.Once
	seen    sync.Map // [2]string{owner, key}: an attestation this process wrote to attestations_seen
}

// Open opens the log, rebuilds the projections from it, and builds the relay.
func Open(cfg Config) (*Hub, error) {
	if !nostr.IsValid32ByteHex(cfg.Admin) {
		return nil, fmt.Errorf("hub admin must be a 64-character hex pubkey")
	}
	if cfg.OpenStore == nil {
		return nil, fmt.Errorf("hub: Config.OpenStore is required (the log to open)")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	switch cfg.Invites {
	case "":
		cfg.Invites = InvitesAdmins
	case InvitesMembers, InvitesAdmins, InvitesOff:
	default:
		return nil, fmt.Errorf("hub: invites must be members, admins or off, not %q", cfg.Invites)
	}
	h := &Hub{admin: cfg.Admin, keys: cfg.Keys, invites: cfg.Invites, log: cfg.Log, now: cfg.Now, targets: newChannelCache(4096)}
	h.kicks = newKicker(cfg.Log)
	h.proj = newProjector(h)
	h.gated = map[kinds.Gate][]int{}
	for _, k := range kinds.All() {
		if k.Storage != kinds.Ephemeral && k.Storage != kinds.NeverStored { // no rows to narrow
			h.gated[k.Gate] = append(h.gated[k.Gate], k.Num)
		}
	}
	cfg.Store.Projector = h.proj
	if cfg.Store.Log == nil {
		log := cfg.Log.With("part", "store")
		cfg.Store.Log = func(msg string, err error) {
			if err != nil {
				log.Warn(msg, "err", err)
				return
			}
			log.Info(msg)
		}
	}
	st, err := cfg.OpenStore(cfg.Store)
	if err != nil {
		return nil, err
	}
	h.Store = st
	// On a shared log, what other instances commit from here on reaches this
	// one: the state it is about to load, and everything after.
	follow, err := followFrom(st)
	if err != nil {
		st.Close()
		return nil, err
	}
	if err := h.recordKey(); err != nil {
		st.Close()
		return nil, err
	}
	n, bad, err := h.Rebuild(context.Background())
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("rebuilding hub state from the log: %w", err)
	}
	if bad > 0 {
		h.log.Warn("events in the log no longer pass the hub's rules; they are kept but do not count", "count", bad)
	}
	h.log.Info("hub state rebuilt from the log", "state_events", n)
	if err := h.reload(); err != nil {
		st.Close()
		return nil, err
	}
	rc := cfg.Relay
	rc.RequireAuth = true
	rc.PubKey = cfg.Admin
	rc.Self = cfg.Keys.PublicHex
	rc.SupportedNIPs = SupportedNIPs
	h.Relay = relay.New(rc, st, cfg.Log)
	h.Relay.Hooks.Admit = append(h.Relay.Hooks.Admit, h.admit)
	h.Relay.Hooks.RejectEvent = append(h.Relay.Hooks.RejectEvent, h.rejectEvent)
	h.Relay.Hooks.RejectFilter = append(h.Relay.Hooks.RejectFilter, h.rejectFilter)
	h.Relay.Hooks.CanRead = append(h.Relay.Hooks.CanRead, h.canRead)
	h.Relay.Hooks.Audience = h.audience
	h.Relay.Hooks.ReadScope = h.readScope
	h.Relay.Hooks.Describe = h.describe
	if h.keys.SecretHex != "" {
		h.Relay.Hooks.Join, h.Relay.Hooks.Invite = h.request, h.invite
	}
	h.kicks.start(h.Relay)
	h.cluster = startCluster(h, follow)
	if err := h.announceMembers(context.Background()); err != nil {
		h.Close()
		return nil, fmt.Errorf("signing the hub's member list: %w", err)
	}
	return h, nil
}

// Close stops the relay, then commits pending writes and closes the log.
// Calls after the first return at once.
func (h *Hub) Close() {
	h.closing.Do(func() {
		h.cluster.stop()
		h.Relay.Close()
		h.Store.Close()
		h.kicks.stop()
	})
}

// Admin is the configured admin's pubkey.
func (h *Hub) Admin() string { return h.admin }

func (h *Hub) reload() error { return h.reloadFrom(h.Store.Reader()) }

// reloadFrom replaces the view with one loaded from db.
func (h *Hub) reloadFrom(db store.Reader) error {
	v, err := loadView(db, h.admin)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.view = v
	h.mu.Unlock()
	return nil
}

func (h *Hub) snapshotView() *view {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.view
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
