package client

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// MemberState is one member of channels as `hive who` shows it.
type MemberState struct {
	Pubkey   string       `json:"pubkey"`
	Name     string       `json:"name"`
	Agent    bool         `json:"agent"`
	Role     string       `json:"role"`               // in the first channel listed that has the key
	Presence string       `json:"presence,omitempty"` // the last presence seen (online, away, offline)
	Working  chat.Working `json:"working"`            // agents: from their frames (to the owner) or typing
	Status   *AgentState  `json:"status,omitempty"`   // agents: what their bridge says (kind 10451)
}

// Who lists the members of channels with their names, then listens for
// listen to presence, typing, messages and the observer frames the
// member's own agents send this key (asking each with a watch control
// frame, which makes its bridge send again what waits for an answer), and
// says who is online and which agents are working (spec/chat.md: frames
// first, else typing).
func (c *Client) Who(ctx context.Context, channels []Channel, listen time.Duration) ([]MemberState, error) {
	m := c.NewModel()
	role := map[string]string{}
	var keys, ids []string
	for _, ch := range channels {
		ids = append(ids, ch.ID)
		for pk, r := range ch.Members {
			if _, ok := role[pk]; !ok {
				role[pk] = r
				keys = append(keys, pk)
			}
		}
	}
	sort.Strings(keys)
	if err := c.LoadNames(ctx, m, keys...); err != nil {
		return nil, err
	}
	watch := map[string]*agentFrames{} // the member's agents, whose frames come to this key
	for _, pk := range keys {
		if m.Names().IsAgent(pk) && m.Names().Owner(pk) == c.Member() {
			if ck, err := nip44.GenerateConversationKey(pk, c.keys.SecretHex); err == nil {
				watch[pk] = &agentFrames{ck: ck, tr: observer.NewTranscript(), first: map[string]time.Time{}}
			}
		}
	}
	now := nostr.Now()
	fs := []nostr.Filter{
		{Kinds: []int{kinds.Presence}, Authors: keys},
		{Kinds: append(ContentKinds(), kinds.Typing), Tags: nostr.TagMap{"h": ids}, Since: &now},
	}
	if len(watch) > 0 {
		var agents []string
		for pk := range watch {
			agents = append(agents, pk)
		}
		fs = append(fs, nostr.Filter{Kinds: []int{kinds.ObserverFrame}, Authors: agents, Tags: nostr.TagMap{"p": {c.keys.PublicHex}}})
	}
	lctx, cancel := context.WithTimeout(ctx, listen)
	defer cancel()
	sub, err := c.Subscribe(lctx, fs...)
	if err != nil {
		return nil, err
	}
	for pk, w := range watch { // the bridge sends what waits for an answer again
		if ev, err := observer.SealFrame(observer.Control{V: 1, Type: observer.CtlWatch}, w.ck, pk); err == nil {
			c.Publish(lctx, *ev) // a refusal only leaves the frames out
		}
	}
	err = c.FollowSub(lctx, sub, func(ev nostr.Event) (bool, error) {
		if w := watch[ev.PubKey]; w != nil && ev.Kind == kinds.ObserverFrame {
			w.apply(&ev)
			return false, nil
		}
		m.Apply(&ev)
		return false, nil
	})
	if err != nil && !(errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil) {
		return nil, err
	}
	at := time.Now()
	for pk, w := range watch {
		for _, t := range w.tr.InFlight() {
			m.Live().TurnStarted(pk, t.Channel, t.Turn, w.first[t.Turn])
		}
	}
	var agents []string
	for _, pk := range keys {
		if m.Names().IsAgent(pk) {
			agents = append(agents, pk)
		}
	}
	states, err := c.AgentStates(ctx, agents, ids)
	if err != nil {
		return nil, err
	}
	out := make([]MemberState, 0, len(keys))
	for _, pk := range keys {
		st := MemberState{Pubkey: pk, Name: m.Names().Name(pk), Agent: m.Names().IsAgent(pk), Role: role[pk]}
		if p, ok := m.Live().PresenceSeen(pk, at); ok {
			st.Presence = p
		}
		if st.Agent {
			st.Working = m.Live().Working(pk, "", at)
			if s, ok := states[pk]; ok {
				st.Status = &s
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// agentFrames folds one agent's frames to this key.
type agentFrames struct {
	ck    [32]byte
	tr    *observer.Transcript
	first map[string]time.Time // turn -> when its first frame came
}

func (w *agentFrames) apply(ev *nostr.Event) {
	var f observer.Frame
	if observer.OpenFrame(ev, w.ck, &f) != nil {
		return
	}
	if _, ok := w.first[f.Turn]; !ok {
		w.first[f.Turn] = time.Now()
	}
	w.tr.Apply(f)
}
