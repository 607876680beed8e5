package workflow

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Default step timeouts.
const (
	DefaultTimeout         = 5 * time.Minute
	DefaultAskAgentTimeout = 30 * time.Minute
	DefaultApprovalTimeout = 24 * time.Hour
)

func (r *reader) steps(n *yaml.Node, t Triggers) []Step {
	if n.Kind != yaml.SequenceNode {
		r.fail(n, "steps is %s: write a list, each step starting with \"- id: NAME\"", kindName(n))
		return nil
	}
	if len(n.Content) == 0 {
		r.fail(n, "steps is empty: add one or more steps")
	}
	items := list(n)
	if len(items) > MaxSteps {
		r.fail(n, "%d steps: at most %d (the ones after step %d are not read)", len(items), MaxSteps, MaxSteps)
		items = items[:MaxSteps]
	}
	var out []Step
	var before []string
	ids := map[string]Pos{}
	for _, sn := range items {
		st, ok := r.step(sn, t, before)
		if st.ID != "" {
			if first, dup := ids[st.ID]; dup {
				r.fail(sn, "step id %q is used twice (first at %d:%d): ids are unique", st.ID, first.Line, first.Col)
			} else {
				ids[st.ID] = st.Pos
				before = append(before, st.ID)
			}
		}
		if ok {
			out = append(out, st)
		}
	}
	return out
}

func (r *reader) step(n *yaml.Node, t Triggers, before []string) (Step, bool) {
	st := Step{Pos: pos(n), Timeout: DefaultTimeout}
	if r.unknownAction(n) {
		for i := 0; i+1 < len(n.Content); i += 2 { // keep its id: later steps may name it
			if n.Content[i].Value == "id" && identRE.MatchString(n.Content[i+1].Value) {
				st.ID = n.Content[i+1].Value
			}
		}
		return st, false
	}
	m, keys, ok := r.mapping(n, "a step", append(append([]string{}, stepKeys...), actions...)...)
	if !ok {
		return st, false
	}
	if v := m["id"]; v == nil {
		r.fail(n, "the step has no id: add id: (a lower-case letter, then letters, digits or _), e.g. id: announce")
	} else {
		st.ID, _ = r.pattern(v, "the step id", identRE, "a lower-case letter, then letters, digits or _, at most 64 (so that steps.ID works in expressions)")
	}
	label := "step " + st.ID
	if v := m["name"]; v != nil {
		st.Name, _ = r.str(v, "the step's name")
	}
	scope := scopeFor(t.Manual, before, false)
	if v := m["if"]; v != nil {
		st.If = r.condition(v, "if", scope)
	}
	if v := m["continue_on_error"]; v != nil {
		st.ContinueOnError, _ = r.boolean(v, "continue_on_error")
	}
	var found []string
	for _, a := range actions {
		if m[a] != nil {
			found = append(found, a)
		}
	}
	switch len(found) {
	case 0:
		r.fail(n, "%s has no action: give exactly one of %s", label, strings.Join(actions, ", "))
		return st, false
	case 1:
	default:
		r.fail(keys[found[1]], "%s has two actions, %s and %s: a step does exactly one; split it into two steps", label, found[0], found[1])
		return st, false
	}
	st.Action = found[0]
	if v := m["timeout"]; v != nil {
		if st.Action == "wait" {
			r.fail(keys["timeout"], "a wait step has no timeout: how long it waits is its wait:")
		} else {
			st.Timeout, _ = r.duration(v, "timeout", MinDuration, MaxDuration)
		}
	}
	r.action(&st, m[st.Action], keys, t, before)
	return st, true
}

// unknownAction reports a step with no action and a key that is neither a
// step key nor an action (send_message): an unknown action, listing them.
func (r *reader) unknownAction(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	var unknown []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if contains(actions, k) {
			return false
		}
		if !contains(stepKeys, k) {
			unknown = append(unknown, n.Content[i])
		}
	}
	for _, k := range unknown {
		r.fail(k, "unknown action %q: the actions are %s (a step has exactly one; its other keys are %s)", k.Value, strings.Join(actions, ", "), strings.Join(stepKeys, ", "))
	}
	return len(unknown) > 0
}
