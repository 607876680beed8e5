package hub

import (
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// projector implements store.Projector: every event that changes hub state is
// checked against the state in the same transaction that stores it, and the
// state tables move with it. The view changes the rules note are held until
// the store reports the commit, then applied in commit order.
//
// Only the store's writer goroutine calls its methods.
type projector struct {
	hub     *Hub
	rules   ruleSet
	cache   *writeCache
	pending []pendingDelta
}

type pendingDelta struct {
	id string // the event whose rule noted it
	d  delta
}

func newProjector(h *Hub) *projector {
	return &projector{hub: h, rules: allRules(), cache: newWriteCache()}
}

// Schema is the projection tables' DDL.
func (p *projector) Schema() []string { return schema }

// Stateful: only state kinds write projection rows.
func (p *projector) Stateful(kind int) bool { return kinds.Classify(kind).IsState() }

// Apply checks ev in the write transaction and writes its effect, returning
// the hub-signed snapshots it calls for.
func (p *projector) Apply(sqlTx store.WriteTx, ev *nostr.Event) ([]*nostr.Event, error) {
	if ev.PubKey == p.hub.keys.PublicHex && kinds.Classify(ev.Kind).HubSigned {
		if ev.Kind == kinds.WebhookDelivery { // once per hook and delivery id
			return nil, p.tx(sqlTx, nil).webhookDelivery(ev)
		}
		return nil, nil // the hub's own announcement (its member lists at start)
	}
	mark := len(p.pending)
	t := p.tx(sqlTx, func(d delta) { p.pending = append(p.pending, pendingDelta{ev.ID, d}) })
	ch, err := t.apply(ev)
	var derived []*nostr.Event
	if err == nil && ch != nil && p.hub.keys.SecretHex != "" {
		derived, err = p.hub.snapshot(t, ev, ch)
	}
	if err != nil {
		p.pending = p.pending[:mark]
		return nil, err
	}
	return derived, nil
}

// tx wraps a write transaction for the rules; edits may be nil (replay).
func (p *projector) tx(sqlTx store.WriteTx, edits func(delta)) *tx {
	return &tx{WriteTx: sqlTx, admin: p.hub.admin, self: p.hub.keys.PublicHex, secret: p.hub.keys.SecretHex, rules: p.rules, cache: p.cache, edits: edits}
}

// RolledBack drops everything cached and pending: it may describe undone writes.
func (p *projector) RolledBack() {
	p.cache = newWriteCache()
	p.pending = nil
}

// Committed is called by the store after a transaction commits, with the
// events it stored, before their OK and fan-out. It publishes the next view
// (in memory, copying only what changed: no SQL) and hands the rest to the
// hub's goroutine.
func (p *projector) Committed(evs []*nostr.Event) {
	stored := make(map[string]bool, len(evs))
	for _, ev := range evs {
		stored[ev.ID] = true
	}
	var ds []delta
	for _, pd := range p.pending {
		if stored[pd.id] {
			ds = append(ds, pd.d)
		}
	}
	p.pending = p.pending[:0]
	p.hub.publishView(ds)
	p.hub.rememberChannels(evs)
	p.hub.afterCommit(evs)
}
