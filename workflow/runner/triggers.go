package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// follow subscribes to what starts and steers runs (definitions, profiles,
// messages, reactions, run requests, deletions) from the cursor, and hands
// each event to its handler, until ctx ends.
func (r *Runner) follow(ctx context.Context) error {
	since := nostr.Timestamp(r.now().Add(-catchUp).Unix())
	if c := r.cursor - nostr.Timestamp(cursorSkew.Seconds()); r.cursor > 0 && c > since {
		since = c
	}
	now := nostr.Now()
	sub, err := r.c.Subscribe(ctx,
		nostr.Filter{Kinds: []int{kinds.WorkflowDef}, Tags: nostr.TagMap{"p": {r.me}}, Since: &now},
		nostr.Filter{Kinds: []int{kinds.Profile, kinds.GroupMembers, kinds.Deletion, kinds.DeleteInChannel}, Since: &now},
		nostr.Filter{Kinds: []int{kinds.Message, kinds.Reaction, kinds.RunRequest}, Since: &since},
		nostr.Filter{Kinds: []int{kinds.Receipt}, Tags: nostr.TagMap{"p": {r.me}}, Since: &since},
		r.deliveryFilter())
	if err != nil {
		return fmt.Errorf("subscribing: %w", err)
	}
	defer sub.Close()
	eose := sub.EOSE()
	for {
		select {
		case <-ctx.Done():
			r.saveCursor()
			return nil
		case <-eose:
			eose = nil
			r.log.Info("runner following", "npub", r.keys.Npub(), "workflows", r.defCount(), "since", since)
		case ev, ok := <-sub.Events():
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("the hub ended the subscription: %v", sub.Err())
			}
			r.handle(ctx, ev)
		}
	}
}

func (r *Runner) defCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.defs)
}

// handle routes one event. Nothing the runner signed starts anything.
func (r *Runner) handle(ctx context.Context, ev nostr.Event) {
	r.mu.Lock()
	if ev.CreatedAt > r.cursor && (ev.Kind == kinds.Message || ev.Kind == kinds.Reaction || ev.Kind == kinds.RunRequest || ev.Kind == kinds.WebhookDelivery) {
		r.cursor = ev.CreatedAt
	}
	switch ev.Kind {
	case kinds.WorkflowDef:
		r.putDef(ev)
	case kinds.Profile:
		r.names.Apply(&ev)
	case kinds.GroupMembers:
		r.mu.Unlock()
		r.refreshChannels(ctx)
		return
	case kinds.Deletion, kinds.DeleteInChannel:
		r.deleted(ev)
	}
	r.mu.Unlock()
	r.waits.deliver(ev)
	if ev.PubKey == r.me {
		return
	}
	switch ev.Kind {
	case kinds.Message:
		r.onMessage(ctx, ev)
	case kinds.Reaction:
		r.onReaction(ctx, ev)
	case kinds.RunRequest:
		r.onRequest(ctx, ev)
	case kinds.WebhookDelivery:
		r.onDelivery(ctx, ev)
	}
}

// deleted drops definitions a deletion names (by a or e). r.mu held.
func (r *Runner) deleted(ev nostr.Event) {
	for _, t := range ev.Tags {
		if len(t) < 2 {
			continue
		}
		for addr, df := range r.defs {
			if (t[0] == "a" && t[1] == addr && ev.PubKey == df.ev.PubKey) || (t[0] == "e" && t[1] == df.ev.ID) {
				r.dropDef(addr)
			}
		}
	}
}

func (r *Runner) refreshChannels(ctx context.Context) {
	chans, err := r.c.Channels(ctx)
	if err != nil {
		return
	}
	r.mu.Lock()
	for _, ch := range chans {
		r.chans[ch.ID] = ch
	}
	r.mu.Unlock()
}

// author is the trigger's author as expressions see it. r.mu held.
func (r *Runner) author(pk string) expression.Author {
	npub, _ := nip19.EncodePublicKey(pk)
	return expression.Author{Name: r.names.Name(pk), Npub: npub, IsAgent: r.names.IsAgent(pk)}
}

// fromOK: from: people (members and their devices, never agents), anyone,
// or a list of @names and npubs. r.mu held.
func (r *Runner) fromOK(f workflow.From, pk string) bool {
	switch f.Kind {
	case "anyone":
		return true
	case "list":
		who := r.names.ActsFor(pk)
		for _, n := range f.Names {
			if k, err := identity.ParsePublicKey(n); err == nil && k == who {
				return true
			}
			if found := r.names.Lookup(n); len(found) == 1 && found[0] == who {
				return true
			}
		}
		return false
	}
	return !r.names.IsAgent(pk)
}

// messageValues are a message's trigger values. r.mu held.
func (r *Runner) messageValues(ev nostr.Event, typ string) expression.Trigger {
	t := expression.Trigger{Type: typ, ID: ev.ID, Text: ev.Content, Author: r.author(ev.PubKey), At: ev.CreatedAt.Time(), Mentions: []string{}}
	ch := tagValue(ev, "h")
	t.Channel = expression.Channel{ID: ch, Name: r.chans[ch].Name}
	if root := kinds.ThreadRoot(&ev); root != ev.ID {
		t.Thread = root
	}
	for _, tg := range ev.Tags {
		if len(tg) >= 2 && tg[0] == "p" && (len(tg) < 4 || tg[3] == "mention") {
			t.Mentions = append(t.Mentions, "@"+r.names.Name(tg[1]))
		}
	}
	return t
}

// onMessage starts the runs a message triggers.
func (r *Runner) onMessage(ctx context.Context, ev nostr.Event) {
	ch := tagValue(ev, "h")
	reply := kinds.ThreadRoot(&ev) != ev.ID
	var once *expression.Trigger // the message's values, made once for every workflow that looks
	r.startMatching(ctx, ch, ev, func(addr string, df *def) (start, bool) {
		m := df.d.On.Message
		if m == nil {
			return start{}, false
		}
		if (m.Threads == "top" || m.Threads == "") && reply || m.Threads == "replies" && !reply || !r.fromOK(m.From, ev.PubKey) {
			return start{}, false
		}
		if once == nil {
			v := r.messageValues(ev, client.TriggerMessage)
			once = &v
		}
		vals := *once
		if !r.when(df, m.When, vals) {
			return start{}, false
		}
		e := ev
		return start{addr: addr, trigger: client.TriggerMessage, ref: ev.ID, at: ev.CreatedAt, values: vals,
			origin: &e, initiator: ev.PubKey, hops: client.HopsOf(ev)}, true
	})
}

// startMatching starts the run match makes of each definition in channel
// ch that is older than ev and that match accepts: the definitions are
// read (and match called) under r.mu, the runs started after it.
func (r *Runner) startMatching(ctx context.Context, ch string, ev nostr.Event, match func(addr string, df *def) (start, bool)) {
	var starts []start
	r.mu.Lock()
	for addr, df := range r.defs {
		if df.channel != ch || df.d == nil || ev.CreatedAt < df.ev.CreatedAt {
			continue
		}
		if s, ok := match(addr, df); ok {
			starts = append(starts, s)
		}
	}
	r.mu.Unlock()
	for _, s := range starts {
		r.start(ctx, s)
	}
}

// when evaluates a trigger's when: (nil: every event); an error is logged
// and does not start a run. r.mu held.
func (r *Runner) when(df *def, c *workflow.Condition, t expression.Trigger) bool {
	if c == nil {
		return true
	}
	x, err := c.Program.Eval(expression.Values{Trigger: t, Now: r.now()})
	if err != nil {
		r.log.Warn("when: did not evaluate", "workflow", df.d.Name, "err", err)
		return false
	}
	b, _ := x.(bool)
	return b
}

// onReaction starts the runs a reaction on a row of the channel triggers.
func (r *Runner) onReaction(ctx context.Context, ev nostr.Event) {
	e := ev.Tags.FindLast("e")
	if len(e) < 2 {
		return
	}
	r.mu.Lock()
	any := false
	for _, df := range r.defs {
		any = any || (df.d != nil && df.d.On.Reaction != nil)
	}
	r.mu.Unlock()
	if !any {
		return
	}
	evs, err := r.c.Query(ctx, nostr.Filter{IDs: []string{e[1]}})
	if err != nil || len(evs) == 0 || evs[0].Kind != kinds.Message {
		return
	}
	target := evs[0]
	ch := tagValue(target, "h")
	emoji := reactionEmoji(ev)
	r.startMatching(ctx, ch, ev, func(addr string, df *def) (start, bool) {
		rt := df.d.On.Reaction
		if rt == nil || rt.Emoji != "" && rt.Emoji != emoji || !r.fromOK(rt.From, ev.PubKey) {
			return start{}, false
		}
		vals := r.reactionValues(ev, target)
		if !r.when(df, rt.When, vals) {
			return start{}, false
		}
		tg := target
		return start{addr: addr, trigger: client.TriggerReaction, ref: ev.ID, at: ev.CreatedAt, values: vals,
			origin: &tg, initiator: ev.PubKey, hops: client.HopsOf(ev)}, true
	})
}

// onRequest is a manual run request, or a cancel.
func (r *Runner) onRequest(ctx context.Context, ev nostr.Event) {
	addr := tagValue(ev, "a")
	if run := tagValue(ev, "cancel"); run != "" {
		r.onCancel(ctx, ev, addr, run)
		return
	}
	r.mu.Lock()
	df := r.defs[addr]
	if df == nil || df.d == nil || df.d.On.Manual == nil || ev.CreatedAt < df.ev.CreatedAt-60 {
		r.mu.Unlock()
		return
	}
	var body struct {
		Inputs map[string]any `json:"inputs"`
	}
	json.Unmarshal([]byte(ev.Content), &body)
	s := start{addr: addr, trigger: client.TriggerManual, ref: ev.ID, at: ev.CreatedAt, origin: &ev, initiator: ev.PubKey, hops: client.HopsOf(ev)}
	s.values = expression.Trigger{Type: client.TriggerManual, ID: ev.ID, Author: r.author(ev.PubKey), At: ev.CreatedAt.Time(), Mentions: []string{},
		Channel: expression.Channel{ID: df.channel, Name: r.chans[df.channel].Name}}
	inputs, err := workflow.CheckInputs(df.d.On.Manual.Inputs, body.Inputs)
	if err == nil {
		err = r.mayRun(df, ev.PubKey)
	}
	s.inputs = inputs
	if err != nil {
		s.refused = err.Error()
	}
	r.mu.Unlock()
	r.start(ctx, s)
}

// mayRun checks run_by: members (of the channel), admins, or a list. r.mu held.
func (r *Runner) mayRun(df *def, pk string) error {
	who := r.names.ActsFor(pk)
	rb := df.d.On.Manual.RunBy
	role := r.chans[df.channel].Members[who]
	switch rb.Kind {
	case "admins":
		if role == "owner" || role == "admin" {
			return nil
		}
		return fmt.Errorf("only the channel's owners and admins may run %s (run_by: admins)", df.d.Name)
	case "list":
		if r.fromOK(rb, pk) {
			return nil
		}
		return fmt.Errorf("%s may not run %s: run_by lists %s", r.names.Name(who), df.d.Name, strings.Join(rb.Names, ", "))
	}
	if role == "" && r.chans[df.channel].Visibility != client.Open {
		return fmt.Errorf("%s is not a member of the workflow's channel", r.names.Name(who))
	}
	return nil
}

// reactionValues are a reaction's trigger values (target: the row it is
// on). r.mu held.
func (r *Runner) reactionValues(ev, target nostr.Event) expression.Trigger {
	vals := r.messageValues(target, client.TriggerReaction)
	vals.ID, vals.Author, vals.At, vals.Emoji = ev.ID, r.author(ev.PubKey), ev.CreatedAt.Time(), reactionEmoji(ev)
	vals.Target = expression.Target{ID: target.ID, Text: target.Content, Author: r.author(target.PubKey)}
	return vals
}

// reactionEmoji is a reaction's content; an empty one counts as "+".
func reactionEmoji(ev nostr.Event) string {
	if ev.Content == "" {
		return "+"
	}
	return ev.Content
}
