package workflow

import (
	"strings"
	"time"

	"github.com/ainb/hive/workflow/expression"
	"github.com/ainb/hive/workflow/schedule"
	"github.com/nbd-wtf/go-nostr/nip19"
	"go.yaml.in/yaml/v3"
)

// MaxLateBound bounds a schedule's max_late; DefaultMaxLate is its default.
const (
	DefaultMaxLate = time.Hour
	MaxLateBound   = 24 * time.Hour
)

func (r *reader) triggers(key, n *yaml.Node) Triggers {
	var t Triggers
	m, _, ok := r.mapping(n, "on", triggerKeys...)
	if !ok {
		return t
	}
	if len(m) == 0 {
		r.fail(key, "on: has no trigger: add one or more of %s", strings.Join(triggerKeys, ", "))
	}
	only := expression.Scope{TriggerOnly: true}
	if v := m["message"]; v != nil {
		t.Message = &MessageTrigger{From: From{Kind: "people"}, Threads: "top"}
		if v.Tag != "!!null" {
			if mm, _, ok := r.mapping(v, "the message trigger", Keys["message"]...); ok {
				if w := mm["when"]; w != nil {
					t.Message.When = r.condition(w, "when", only)
				}
				if f := mm["from"]; f != nil {
					t.Message.From = r.from(f, "from", "people", "anyone")
				}
				if th := mm["threads"]; th != nil {
					t.Message.Threads, _ = r.word(th, "threads", "top", "replies", "any")
				}
			}
		}
	}
	if v := m["reaction"]; v != nil {
		t.Reaction = &ReactionTrigger{From: From{Kind: "people"}}
		if v.Tag != "!!null" {
			if mm, _, ok := r.mapping(v, "the reaction trigger", Keys["reaction"]...); ok {
				if e := mm["emoji"]; e != nil {
					t.Reaction.Emoji, _ = r.str(e, "emoji")
				}
				if w := mm["when"]; w != nil {
					t.Reaction.When = r.condition(w, "when", only)
				}
				if f := mm["from"]; f != nil {
					t.Reaction.From = r.from(f, "from", "people", "anyone")
				}
			}
		}
	}
	if v := m["schedule"]; v != nil {
		entries := list(v)
		if len(entries) > MaxTriggers {
			r.fail(v, "%d schedules: at most %d triggers in all", len(entries), MaxTriggers)
			entries = entries[:MaxTriggers]
		}
		for _, e := range entries {
			if s, ok := r.schedule(e); ok {
				t.Schedule = append(t.Schedule, s)
			}
		}
	}
	if v := m["webhook"]; v != nil {
		t.Webhook = &WebhookTrigger{}
		if v.Tag != "!!null" {
			r.mapping(v, "the webhook trigger", Keys["webhook"]...) // no keys in v1: {} or empty
		}
	}
	if v := m["manual"]; v != nil {
		t.Manual = r.manual(v)
	}
	if c := t.Count(); c > MaxTriggers {
		r.fail(key, "on: has %d triggers: at most %d", c, MaxTriggers)
	}
	return t
}

func (r *reader) schedule(n *yaml.Node) (ScheduleTrigger, bool) {
	s := ScheduleTrigger{Pos: pos(n), MaxLate: DefaultMaxLate}
	m, _, ok := r.mapping(n, "a schedule", Keys["schedule"]...)
	if !ok {
		return s, false
	}
	if m["cron"] == nil {
		r.fail(n, "the schedule has no cron: add cron: with 5 fields, e.g. cron: \"30 9 * * 1-5\"")
		return s, false
	}
	text, ok := r.str(m["cron"], "cron")
	if !ok {
		return s, false
	}
	c, cerr := schedule.ParseCron(text)
	if cerr != nil {
		p := pos(m["cron"])
		if mp := scalarMap(r.lines, m["cron"]); mp != nil && cerr.Offset < len(mp) {
			p = mp[cerr.Offset]
		}
		r.errs.add(p, "cron: %s", cerr.Message)
	}
	loc := time.UTC
	if z := m["timezone"]; z != nil {
		if name, ok := r.str(z, "timezone"); ok {
			l, err := schedule.LoadZone(name)
			if err != nil {
				r.fail(z, "%v", err)
			} else {
				loc = l
			}
		}
	}
	if ml := m["max_late"]; ml != nil {
		if d, ok := r.duration(ml, "max_late", time.Minute, MaxLateBound); ok {
			s.MaxLate = d
		}
	}
	if c == nil {
		return s, false
	}
	s.Schedule = schedule.New(c, loc)
	return s, true
}

// from reads who may trigger or run: one of words, or a list of @name and
// npub entries.
func (r *reader) from(n *yaml.Node, what string, words ...string) From {
	if n.Kind == yaml.ScalarNode && contains(words, n.Value) {
		return From{Kind: n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		r.fail(n, "%s is %s: write %s, or a list of @name and npub entries", what, kindName(n), strings.Join(words, ", "))
		return From{Kind: words[0]}
	}
	f := From{Kind: "list"}
	for _, e := range list(n) {
		if s, ok := r.str(e, "an entry of "+what); ok && r.person(e, s, what) {
			f.Names = append(f.Names, s)
		}
	}
	if len(f.Names) == 0 && len(n.Content) == 0 {
		r.fail(n, "%s is an empty list: name someone, or write %s", what, strings.Join(words, ", "))
	}
	return f
}

// person checks an @name or npub entry.
func (r *reader) person(n *yaml.Node, s, what string) bool {
	switch {
	case strings.HasPrefix(s, "@") && len(s) > 1 && !strings.ContainsAny(s, " \t"):
		return true
	case strings.HasPrefix(s, "npub1"):
		if p, _, err := nip19.Decode(s); err == nil && p == "npub" {
			return true
		}
		r.fail(n, "%s: %q is not a valid npub: check it (hive key npub)", what, s)
		return false
	}
	r.fail(n, "%s: %q is neither @name nor an npub: write @%s for a member's name", what, s, strings.TrimPrefix(s, "@"))
	return false
}

func (r *reader) manual(n *yaml.Node) *ManualTrigger {
	mt := &ManualTrigger{RunBy: From{Kind: "members"}}
	if n.Tag == "!!null" {
		return mt
	}
	m, _, ok := r.mapping(n, "the manual trigger", Keys["manual"]...)
	if !ok {
		return mt
	}
	if v := m["run_by"]; v != nil {
		mt.RunBy = r.from(v, "run_by", "members", "admins")
	}
	if v := m["inputs"]; v != nil && v.Tag != "!!null" {
		if v.Kind != yaml.MappingNode {
			r.fail(v, "inputs is %s: write one key per input, e.g. version: {type: string, required: true}", kindName(v))
			return mt
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, spec := v.Content[i], resolve(v.Content[i+1])
			name, ok := r.pattern(k, "the input name", identRE, "a lower-case letter, then letters, digits or _, at most 64 (so that inputs.NAME works in expressions)")
			if !ok {
				continue
			}
			if seen[name] {
				r.fail(k, "input %q is declared twice: keep one", name)
				continue
			}
			seen[name] = true
			if in, ok := r.input(name, spec); ok {
				mt.Inputs = append(mt.Inputs, in)
			}
		}
	}
	return mt
}
