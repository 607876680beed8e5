// Package chat is hive's chat model: it turns the hub's events, applied one
// at a time as they arrive, into what a person sees: a timeline per channel
// and per thread (edits, deletes, reactions, replies), unread and mention
// counts, names, presence, typing and whether an agent is working. It does
// no input or output of its own, so every surface (the CLI, a terminal
// chat, the web chat's fixtures) can share it. spec/chat.md is its rule book.
package chat

import (
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Model is the chat state of one member. It is not safe for concurrent use:
// a surface applies events and reads views from one goroutine.
type Model struct {
	me       string // the member's own key (a device's owner)
	now      func() time.Time
	rows     map[string]*row
	channels map[string]*sorted // channel id -> its rows
	threads  map[string]*sorted // root id -> its replies
	kids     map[string][]*row  // id -> rows that answer it
	overlays map[string]*overlay
	byTarget map[string][]*overlay // target id -> its edits and reactions
	gone     map[string]bool       // ids deleted by 5 or 9005 (rows or overlays)
	held     map[string][]string   // id not loaded yet -> the signers of kind 5s naming it
	quoted   map[string]*row       // messages loaded only as what rows quote (ApplyQuoted), not rows
	names    *Names
	live     *Live
	changes  []Change // what the last Apply returned (reused)
}

// overlay is an edit, a reaction or an agent's receipt.
type overlay struct {
	id, author, target string
	kind               int
	k                  key
	created            nostr.Timestamp
	text               string // the new text, the emoji, or a receipt's reason
	status             string // a receipt's status
	run                *RunBadge
}

// overlayOp is what an overlay of kind n changes.
func overlayOp(n int) Op {
	switch n {
	case kinds.Reaction:
		return Reacted
	case kinds.Receipt:
		return Receipted
	case kinds.RunRecord:
		return RunRecorded
	}
	return Edited
}

// New is an empty model for the member whose key is me (for a paired
// device, its owner's key: the device acts as its owner).
func New(me string) *Model {
	return &Model{
		me: me, now: time.Now,
		rows: map[string]*row{}, channels: map[string]*sorted{}, threads: map[string]*sorted{},
		kids: map[string][]*row{}, overlays: map[string]*overlay{}, byTarget: map[string][]*overlay{},
		gone: map[string]bool{}, held: map[string][]string{}, quoted: map[string]*row{}, names: NewNames(), live: NewLive(),
	}
}

// SetClock replaces the clock that presence and typing expire by (tests).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// Me is the member's key.
func (m *Model) Me() string { return m.me }

// Names is the model's directory of names.
func (m *Model) Names() *Names { return m.names }

// Live is the model's presence, typing and working state.
func (m *Model) Live() *Live { return m.live }

// Op is what an event changed.
type Op string

// What Apply reports.
const (
	Added       Op = "added"   // a new row
	Edited      Op = "edited"  // a row's text (or an edit was retracted)
	Deleted     Op = "deleted" // a row is hidden
	Reacted     Op = "reacted" // a row's reactions (added or retracted)
	Receipted   Op = "receipt" // an agent's receipt on a row (where its answer stands)
	RunRecorded Op = "run"     // a workflow run's record on its card
	Named       Op = "named"   // a profile
	LiveState   Op = "live"    // presence or typing
	Ignored     Op = "ignored" // nothing: a duplicate or a kind the model does not show
)

// Change is one effect of an event: the row it concerns, and whether that
// row is loaded (an overlay of a row not loaded yet waits for it).
type Change struct {
	Op      Op
	Channel string
	ID      string
	Loaded  bool
}

// Apply applies one event and says what it changed (the slice is reused by
// the next Apply). Events may come in any order and more than once; the
// views depend only on the set applied.
func (m *Model) Apply(ev *nostr.Event) []Change {
	switch {
	case ev.Kind == kinds.Profile:
		if m.names.Apply(ev) {
			return m.report(Change{Op: Named, ID: ev.PubKey})
		}
	case ev.Kind == kinds.Presence || ev.Kind == kinds.Typing:
		if m.live.Apply(ev, m.now()) {
			return m.report(Change{Op: LiveState, Channel: channelOf(ev), ID: ev.PubKey})
		}
	case isRowKind(ev.Kind):
		return m.addRow(ev)
	case ev.Kind == kinds.Edit || ev.Kind == kinds.Reaction || ev.Kind == kinds.Receipt || ev.Kind == kinds.RunRecord:
		return m.addOverlay(ev)
	case ev.Kind == kinds.DeleteInChannel || ev.Kind == kinds.Deletion:
		return m.deleteTargets(ev)
	}
	return m.report(Change{Op: Ignored, ID: ev.ID})
}

// ApplyAll applies events in the order given.
func (m *Model) ApplyAll(evs []nostr.Event) {
	if len(m.rows) == 0 && len(m.overlays) == 0 { // sized once for a first load
		m.rows, m.overlays = make(map[string]*row, len(evs)), make(map[string]*overlay, len(evs))
		m.byTarget = make(map[string][]*overlay, len(evs)/2)
	}
	for i := range evs {
		m.Apply(&evs[i])
	}
}

// report returns c as the only change of this Apply.
func (m *Model) report(c Change) []Change {
	m.changes = append(m.changes[:0], c)
	return m.changes
}

func (m *Model) change(op Op, id, channel string) Change {
	if r := m.rows[id]; r != nil {
		return Change{Op: op, Channel: r.channel, ID: id, Loaded: true}
	}
	return Change{Op: op, Channel: channel, ID: id}
}

func (m *Model) addRow(ev *nostr.Event) []Change {
	if m.rows[ev.ID] != nil || ev.ID == "" {
		return m.report(Change{Op: Ignored, ID: ev.ID})
	}
	r := newRow(ev)
	m.rows[r.id] = r
	m.judgeHeld(r.id, r.author)
	if r.parent != "" {
		m.kids[r.parent] = append(m.kids[r.parent], r)
	}
	r.k = m.keyOf(r)
	m.place(r)
	for _, kid := range m.kids[r.id] {
		m.rekey(kid)
	}
	m.live.sent(r.channel, r.author, time.Unix(int64(r.created), 0))
	return m.report(m.change(Added, r.id, r.channel))
}

// keyOf is r's place: its own time, or just after the message it answers
// when a clock put it before (a reply always comes after its question).
func (m *Model) keyOf(r *row) key {
	k := key{r.own, r.id}
	if p := m.rows[r.parent]; p != nil && p.k.t >= k.t {
		k.t = p.k.t + 1
	}
	return k
}

func (m *Model) place(r *row) {
	ch := m.channels[r.channel]
	if ch == nil {
		ch = &sorted{}
		m.channels[r.channel] = ch
	}
	ch.insert(r)
	if r.root != "" {
		th := m.threads[r.root]
		if th == nil {
			th = &sorted{}
			m.threads[r.root] = th
		}
		th.insert(r)
	}
}

func (m *Model) unplace(r *row) {
	m.channels[r.channel].remove(r)
	if r.root != "" {
		m.threads[r.root].remove(r)
	}
}

// rekey moves r (and what answers it) when the row it answers moved.
func (m *Model) rekey(r *row) {
	k := m.keyOf(r)
	if k == r.k {
		return
	}
	m.unplace(r)
	r.k = k
	m.place(r)
	for _, kid := range m.kids[r.id] {
		m.rekey(kid)
	}
}

func targetOf(ev *nostr.Event) string {
	if t := ev.Tags.FindLast("e"); t != nil {
		return t[1]
	}
	return ""
}

func (m *Model) addOverlay(ev *nostr.Event) []Change {
	target := targetOf(ev)
	if m.overlays[ev.ID] != nil || ev.ID == "" || target == "" {
		return m.report(Change{Op: Ignored, ID: ev.ID})
	}
	o := &overlay{id: ev.ID, author: ev.PubKey, target: target, kind: ev.Kind, k: key{Millis(ev), ev.ID}, created: ev.CreatedAt, text: ev.Content}
	op := overlayOp(ev.Kind)
	switch ev.Kind {
	case kinds.Reaction:
		if o.text == "" {
			o.text = "+"
		}
	case kinds.Receipt:
		if o.status = tagOf(ev, "status"); !kinds.ValidReceiptStatus(o.status) {
			return m.report(Change{Op: Ignored, ID: ev.ID})
		}
	case kinds.RunRecord:
		var ok bool
		if o.run, ok = runBadge(ev); !ok {
			return m.report(Change{Op: Ignored, ID: ev.ID})
		}
	}
	m.overlays[o.id] = o
	m.judgeHeld(o.id, o.author)
	m.byTarget[target] = append(m.byTarget[target], o)
	return m.report(m.change(op, target, channelOf(ev)))
}
