package workflow

import (
	"net/url"
	"strings"
	"time"

	"github.com/ainb/hive/workflow/expression"
	"go.yaml.in/yaml/v3"
)

// action reads the step's one action, n its value.
func (r *reader) action(st *Step, n *yaml.Node, keys map[string]*yaml.Node, t Triggers, before []string) {
	scope := scopeFor(t.Manual, before, false)
	what := st.Action
	switch st.Action {
	case "post":
		p := &Post{In: "channel"}
		if n.Kind == yaml.ScalarNode {
			p.Text, _ = r.text(n, "post", scope)
		} else if m, _, ok := r.mapping(n, "post", Keys["post"]...); ok {
			p.Text = r.requiredText(n, m, "text", "post", scope)
			if v := m["in"]; v != nil {
				p.In, _ = r.word(v, "in", "channel", "thread")
			}
			if v := m["mention"]; v != nil {
				for _, e := range list(v) {
					if s, ok := r.str(e, "a mention"); ok && r.person(e, s, "mention") {
						p.Mention = append(p.Mention, s)
					}
				}
			}
		}
		st.Post = p
	case "dm":
		d := &DM{}
		if m, _, ok := r.mapping(n, "dm", Keys["dm"]...); ok {
			if v := m["to"]; v == nil {
				r.fail(n, "dm has no to: add to: @name or an npub")
			} else if s, ok := r.str(v, "to"); ok && r.person(v, s, "to") {
				d.To = s
			}
			d.Text = r.requiredText(n, m, "text", "dm", scope)
		}
		st.DM = d
	case "react":
		if t.Message == nil && t.Reaction == nil {
			r.fail(keys["react"], "react reacts on the triggering message, and this workflow has no message or reaction trigger: use post, or add one")
		}
		rc := &React{}
		if n.Kind == yaml.ScalarNode {
			rc.Emoji, _ = r.str(n, "react")
		} else if m, _, ok := r.mapping(n, "react", Keys["react"]...); ok {
			if v := m["emoji"]; v == nil {
				r.fail(n, "react has no emoji: add emoji:, e.g. emoji: \"👀\"")
			} else {
				rc.Emoji, _ = r.str(v, "emoji")
			}
		}
		st.React = rc
	case "ask_agent":
		a := &AskAgent{}
		if m, k, ok := r.mapping(n, "ask_agent", Keys["ask_agent"]...); ok {
			if v := m["agent"]; v == nil {
				r.fail(n, "ask_agent has no agent: add agent: (the agent's name or npub)")
			} else {
				a.Agent, _ = r.str(v, "agent")
			}
			a.Text = r.requiredText(n, m, "text", "ask_agent", scope)
			st.Timeout = r.innerTimeout(st, keys, m, k, DefaultAskAgentTimeout)
		}
		st.AskAgent = a
	case "approval":
		st.Approval = r.approval(st, n, keys, scope)
	case "wait":
		w := &Wait{}
		if n.Kind == yaml.ScalarNode {
			w.Duration, _ = r.duration(n, "wait", MinDuration, MaxDuration)
		} else if m, _, ok := r.mapping(n, "wait", Keys["wait"]...); ok {
			if v := m["until"]; v == nil {
				r.fail(n, "wait has no until: write wait: 10m, or wait: {until: EXPRESSION}")
			} else if c := r.timeExpr(v, scope); c != nil {
				w.Until = c
			}
		}
		st.Wait = w
	case "set_topic":
		s := &SetTopic{}
		if n.Kind == yaml.ScalarNode {
			s.Text, _ = r.text(n, "set_topic", scope)
		} else if m, _, ok := r.mapping(n, "set_topic", Keys["set_topic"]...); ok {
			s.Text = r.requiredText(n, m, "text", "set_topic", scope)
		}
		st.SetTopic = s
	case "http":
		st.HTTP = r.http(n, scopeFor(t.Manual, before, true))
	default:
		r.fail(n, "unknown action %s", what)
	}
}

// requiredText reads m[key] as a text, an error when it is missing.
func (r *reader) requiredText(n *yaml.Node, m map[string]*yaml.Node, key, what string, scope expression.Scope) Text {
	v := m[key]
	if v == nil {
		r.fail(n, "%s has no %s: add %s:", what, key, key)
		return Text{}
	}
	t, _ := r.text(v, what+" "+key, scope)
	return t
}

// innerTimeout is the timeout of an action that waits (ask_agent,
// approval): given inside the action or on the step, not both.
func (r *reader) innerTimeout(st *Step, stepKeys map[string]*yaml.Node, m, keys map[string]*yaml.Node, def time.Duration) time.Duration {
	v := m["timeout"]
	if v != nil && stepKeys["timeout"] != nil {
		r.fail(keys["timeout"], "timeout is given twice, on the step (%d:%d) and in %s: keep one", stepKeys["timeout"].Line, stepKeys["timeout"].Column, st.Action)
		return st.Timeout
	}
	if stepKeys["timeout"] != nil {
		return st.Timeout
	}
	if v == nil {
		return def
	}
	d, ok := r.duration(v, "timeout", MinDuration, MaxDuration)
	if !ok {
		return def
	}
	return d
}

// timeExpr compiles an expression that gives a time (wait: until:).
func (r *reader) timeExpr(n *yaml.Node, scope expression.Scope) *expression.Program {
	src, ok := r.str(n, "until")
	if !ok || !r.budget(n, 1) {
		return nil
	}
	p, e := expression.CompileTime(src, scope)
	if e != nil {
		r.exprError(n, 0, e, "until")
		return nil
	}
	return p
}

var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func (r *reader) http(n *yaml.Node, scope expression.Scope) *HTTP {
	h := &HTTP{Headers: map[string]Text{}}
	m, _, ok := r.mapping(n, "http", Keys["http"]...)
	if !ok {
		return h
	}
	if v := m["url"]; v == nil {
		r.fail(n, "http has no url: add url: https://…")
	} else if t, ok := r.text(v, "url", scope); ok {
		h.URL = t
		if plain, isPlain := t.Template.Plain(); isPlain {
			if u, err := url.Parse(plain); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				r.fail(v, "url %q is not an http or https URL: write https://host/path", plain)
			}
		}
	}
	if v := m["body"]; v != nil {
		t, _ := r.text(v, "body", scope)
		h.Body = &t
	}
	h.Method = "GET"
	if h.Body != nil {
		h.Method = "POST"
	}
	if v := m["method"]; v != nil {
		if s, ok := r.word(v, "method", methods...); ok {
			h.Method = s
		}
	}
	if v := m["headers"]; v != nil {
		if v.Kind != yaml.MappingNode {
			r.fail(v, "headers is %s: write one header per key, e.g. Authorization: \"Bearer ${{ secrets.TOKEN }}\"", kindName(v))
		} else {
			for i := 0; i+1 < len(v.Content); i += 2 {
				k := v.Content[i]
				if strings.ContainsAny(k.Value, " :\t\r\n") || k.Value == "" {
					r.fail(k, "header name %q is not valid: letters, digits and -", k.Value)
					continue
				}
				t, _ := r.text(resolve(v.Content[i+1]), "header "+k.Value, scope)
				h.Headers[k.Value] = t
			}
		}
	}
	return h
}
