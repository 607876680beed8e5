package test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// readWorld is a closed hub with an open channel, a private channel and a DM,
// events of every way an event is tied to a channel (or to none), and three
// readers: a member of everything, a hub member in none of the private
// channels, and an agent that is a bot in the private channel only. The read
// rule is modelled here independently of the hub's code (readable, refused),
// and answers are checked against the log itself.
type readWorld struct {
	h                   *closedHub
	alice, eve, agent   key
	readers             map[string]*raw // by name: member, non-member, agent
	keys                map[string]key
	private             map[string]map[string]bool // private channel → its members
	byID                map[string]*nostr.Event    // every stored event
	chans               map[string]string          // channel of each event, decided when it was published
	lobbyMsg, vaultMsg  *nostr.Event
	dmMsg, lobbyReply   *nostr.Event
	defLimit, maxLimit  int
	vaultNewest         []*nostr.Event // the newest rows of the log, all in vault
	midTime, latestTime nostr.Timestamp
}

func newReadWorld(t testing.TB) *readWorld {
	t.Helper()
	h, tm := startTeam(t)
	w := &readWorld{h: h, alice: tm.alice, eve: tm.bob, agent: tm.agent, byID: map[string]*nostr.Event{}, chans: map[string]string{}}
	w.keys = map[string]key{"member": w.alice, "non-member": w.eve, "agent": w.agent}
	a, ag := tm.a, tm.ag
	createChannel(t, a, w.alice, "lobby", "open")
	createChannel(t, a, w.alice, "vault", "private")
	a.must(w.alice.sign(t, 9000, "", nostr.Tag{"h", "vault"}, nostr.Tag{"p", w.agent.pk, "bot"}))
	carol := newKey(t)
	h.addMember(t, tm.admin, carol)
	createChannel(t, a, w.alice, "dm-ac", "private", nostr.Tag{"type", "dm"}, nostr.Tag{"p", carol.pk})
	w.private = map[string]map[string]bool{
		"vault": {w.alice.pk: true, w.agent.pk: true},
		"dm-ac": {w.alice.pk: true, carol.pk: true},
	}

	at := nostr.Now() - 55 // the agent's attestation is valid from a minute ago
	sign := func(k key, kind int, content string, tags ...nostr.Tag) *nostr.Event {
		at++
		ev := &nostr.Event{Kind: kind, CreatedAt: at, Content: content, Tags: nostr.Tags(tags)}
		if ev.Tags == nil {
			ev.Tags = nostr.Tags{}
		}
		if err := ev.Sign(k.sk); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	conn := map[string]*raw{w.alice.pk: a, w.agent.pk: ag, w.eve.pk: tm.b}
	pub := func(k key, kind int, content string, tags ...nostr.Tag) *nostr.Event {
		ev := conn[k.pk].must(sign(k, kind, content, tags...))
		w.chans[ev.ID] = w.channelOf(ev)
		return ev
	}
	for i := 0; i < 6; i++ {
		for _, ch := range []string{"lobby", "vault", "dm-ac"} {
			writer := w.alice
			if ch == "lobby" && i%2 == 1 {
				writer = w.eve
			}
			if ch == "vault" && i%3 == 2 {
				writer = w.agent
			}
			m := pub(writer, 9, fmt.Sprintf("%s %d", ch, i), nostr.Tag{"h", ch}, nostr.Tag{"p", w.eve.pk}, nostr.Tag{"t", "plan"})
			switch ch {
			case "lobby":
				w.lobbyMsg = m
			case "vault":
				w.vaultMsg = m
			default:
				w.dmMsg = m
			}
		}
		if i == 2 {
			w.midTime = at
		}
	}
	// threads, reactions (channel from their target), other kinds with h
	w.lobbyReply = pub(w.eve, 9, "reply", nostr.Tag{"h", "lobby"}, nostr.Tag{"e", w.lobbyMsg.ID, "", "root"})
	pub(w.alice, 9, "vault reply", nostr.Tag{"h", "vault"}, nostr.Tag{"e", w.vaultMsg.ID, "", "root"}, nostr.Tag{"p", w.eve.pk})
	pub(w.alice, 7, "+", nostr.Tag{"e", w.vaultMsg.ID}, nostr.Tag{"p", w.alice.pk})
	pub(w.eve, 7, "+", nostr.Tag{"e", w.lobbyMsg.ID})
	pub(w.agent, 7, "+", nostr.Tag{"e", w.vaultMsg.ID})
	pub(w.alice, 7, "+", nostr.Tag{"e", w.dmMsg.ID})
	for _, k := range []int{1, 1111, 30023} {
		pub(w.alice, k, "in vault", nostr.Tag{"h", "vault"}, nostr.Tag{"t", "plan"}, nostr.Tag{"d", "doc"}, nostr.Tag{"e", w.vaultMsg.ID})
		pub(w.alice, k, "in dm", nostr.Tag{"h", "dm-ac"}, nostr.Tag{"d", "doc2"}, nostr.Tag{"p", w.eve.pk})
	}
	pub(w.alice, 1, "no channel", nostr.Tag{"t", "plan"}, nostr.Tag{"p", w.eve.pk}, nostr.Tag{"e", w.vaultMsg.ID})
	pub(w.eve, 1, "eve's note", nostr.Tag{"t", "plan"})
	pub(w.agent, 1, "agent's note", nostr.Tag{"e", w.lobbyMsg.ID})
	for _, k := range []key{w.alice, w.eve, w.agent} {
		pub(k, 30078, "1", nostr.Tag{"d", "read-state:x"}, nostr.Tag{"h", "lobby"})
	}
	pub(w.alice, 5, "", nostr.Tag{"e", w.dmMsg.ID}) // deletes alice's own DM message
	// the newest rows of the log are all in vault: a limit must reach past them
	for i := 0; i < 12; i++ {
		w.vaultNewest = append(w.vaultNewest, pub(w.alice, 9, fmt.Sprint("vault late ", i), nostr.Tag{"h", "vault"}, nostr.Tag{"t", "plan"}, nostr.Tag{"p", w.eve.pk}))
	}
	w.latestTime = at

	all, err := h.Hub.Store.Query(ctxT(t), nostr.Filter{Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range all {
		w.byID[ev.ID] = ev
	}
	w.defLimit, w.maxLimit = h.Hub.Store.Limits()
	w.readers = map[string]*raw{}
	for name, k := range w.keys {
		if name == "agent" {
			w.readers[name] = h.as(t, k, tm.tag)
		} else {
			w.readers[name] = h.as(t, k)
		}
	}
	return w
}

// channelOf: first h; d of 39000-39002; for 5 and 7 the channel of the first
// e target that had one when they were published.
func (w *readWorld) channelOf(ev *nostr.Event) string {
	if ch, ok := w.chans[ev.ID]; ok {
		return ch
	}
	if tg := ev.Tags.Find("h"); tg != nil {
		return tg[1]
	}
	switch ev.Kind {
	case 39000, 39001, 39002:
		if tg := ev.Tags.Find("d"); tg != nil {
			return tg[1]
		}
	case 5, 7:
		for _, tg := range ev.Tags {
			if len(tg) >= 2 && tg[0] == "e" && w.chans[tg[1]] != "" {
				return w.chans[tg[1]]
			}
		}
	}
	return ""
}

func (w *readWorld) readable(ev *nostr.Event, reader string) bool {
	switch ev.Kind {
	case 30078:
		return ev.PubKey == reader
	case 24200, 24134:
		return ev.PubKey == reader || ev.Tags.FindWithValue("p", reader) != nil
	}
	members, private := w.private[w.channelOf(ev)]
	return !private || members[reader]
}

// refused says whether the read rule refuses f for reader, and why.
func (w *readWorld) refused(f nostr.Filter, reader string) string {
	canRead := func(ch string) bool { m, p := w.private[ch]; return !p || m[reader] }
	for _, ch := range f.Tags["h"] {
		if !canRead(ch) {
			return "#h " + ch
		}
	}
	snapshots := len(f.Kinds) > 0
	for _, k := range f.Kinds {
		snapshots = snapshots && k >= 39000 && k <= 39002
	}
	if snapshots {
		for _, ch := range f.Tags["d"] {
			if !canRead(ch) {
				return "#d " + ch
			}
		}
	}
	for _, id := range f.IDs {
		if ev := w.byID[id]; ev != nil && !w.readable(ev, reader) {
			return "ids " + id[:8]
		}
	}
	for _, k := range f.Kinds {
		switch k {
		case 30078:
			if slices.ContainsFunc(f.Authors, func(a string) bool { return a != reader }) {
				return "authors of an author-only kind"
			}
		case 24200, 24134:
			inA, inP := slices.Contains(f.Authors, reader), slices.Contains(f.Tags["p"], reader)
			if (f.Authors != nil && !inA || f.Tags["p"] != nil && !inP) && !inA && !inP {
				return "authors/#p of a recipient-only kind"
			}
		}
	}
	return ""
}

// answer is what the read rule says reader gets for f: the newest readable
// matches, up to the limit.
func (w *readWorld) answer(f nostr.Filter, reader string) []*nostr.Event {
	var out []*nostr.Event
	for _, ev := range w.byID {
		if f.Matches(ev) && w.readable(ev, reader) {
			out = append(out, ev)
		}
	}
	slices.SortFunc(out, func(x, y *nostr.Event) int {
		if x.CreatedAt != y.CreatedAt {
			return cmp.Compare(y.CreatedAt, x.CreatedAt)
		}
		return strings.Compare(x.ID, y.ID)
	})
	limit := f.Limit
	switch {
	case f.LimitZero:
		limit = 0
	case limit <= 0:
		limit = w.defLimit
	}
	return out[:min(len(out), limit)]
}

// check runs f as REQ and COUNT for the named reader and compares both with
// the read rule, event by event.
func (w *readWorld) check(t testing.TB, name string, reader string, f nostr.Filter) {
	t.Helper()
	r, pk := w.readers[reader], w.keys[reader].pk
	evs, closed := r.req("t", f)
	n, cclosed := r.count("tc", f)
	for _, ev := range evs {
		if !w.readable(ev, pk) {
			t.Errorf("%s, %s: returned unreadable %s", name, reader, ev)
		}
	}
	if why := w.refused(f, pk); why != "" {
		if !hasPrefix(closed, "restricted:") || !hasPrefix(cclosed, "restricted:") || len(evs) != 0 {
			t.Errorf("%s, %s: want restricted: (%s); REQ %d events CLOSED %q, COUNT %d %q", name, reader, why, len(evs), closed, n, cclosed)
		}
		return
	}
	if closed != "" || cclosed != "" {
		t.Errorf("%s, %s: refused (REQ %q, COUNT %q); the rule answers it", name, reader, closed, cclosed)
		return
	}
	want := w.answer(f, pk)
	if got, exp := eventIDs(evs), eventIDs(want); !slices.Equal(got, exp) {
		t.Errorf("%s, %s: got %d events, want %d\n got  %v\n want %v", name, reader, len(got), len(exp), w.describe(evs), w.describe(want))
	}
	if f.Limit == 0 {
		unlimited := f
		unlimited.Limit, unlimited.LimitZero = w.maxLimit, false
		if exp := int64(len(w.answer(unlimited, pk))); n != exp {
			t.Errorf("%s, %s: COUNT %d, want %d", name, reader, n, exp)
		}
	}
}

func eventIDs(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

func (w *readWorld) describe(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = fmt.Sprintf("%d/%s/%q", ev.Kind, w.channelOf(ev), ev.Content)
	}
	return out
}
