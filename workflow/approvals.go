package workflow

import (
	"strings"
	"time"

	"github.com/ainb/hive/workflow/expression"
	"go.yaml.in/yaml/v3"
)

// approverRoles are the approver specs that are no one person.
var approverRoles = []string{"owner", "channel-admins", "channel-owners"}

// MaxApprovals bounds an approval's min.
const MaxApprovals = 20

func (r *reader) approval(st *Step, n *yaml.Node, stepKeys map[string]*yaml.Node, scope expression.Scope) *Approval {
	a := &Approval{OnTimeout: "fail", Min: 1}
	m, keys, ok := r.mapping(n, "approval", Keys["approval"]...)
	if !ok {
		return a
	}
	if v := m["approvers"]; v == nil {
		r.fail(n, "approval has no approvers: add approvers: (%s, @name or an npub)", strings.Join(approverRoles, ", "))
	} else {
		for _, e := range list(v) {
			s, ok := r.str(e, "an approver")
			if !ok {
				continue
			}
			if contains(approverRoles, s) || r.person(e, s, "approvers") {
				a.Approvers = append(a.Approvers, s)
				a.approverPos = append(a.approverPos, pos(e))
			}
		}
		if v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
			r.fail(v, "approvers is an empty list: name who decides (%s, @name or an npub)", strings.Join(approverRoles, ", "))
		}
	}
	if v := m["message"]; v != nil {
		a.Message, _ = r.text(v, "approval message", scope)
	}
	if v := m["on_timeout"]; v != nil {
		a.OnTimeout, _ = r.word(v, "on_timeout", "fail", "deny", "continue")
	}
	if v := m["allow_self"]; v != nil {
		a.AllowSelf, _ = r.boolean(v, "allow_self")
	}
	if v := m["min"]; v != nil {
		if k, ok := r.integer(v, "min", 1, MaxApprovals); ok {
			a.Min = k
			people := 0
			for _, s := range a.Approvers {
				if contains(approverRoles, s) {
					people = -1 // a role: how many is known when the step starts
					break
				}
				people++
			}
			if people >= 0 && k > people && len(a.Approvers) > 0 {
				r.fail(v, "min is %d, and only %d approvers are named: lower min or name more approvers", k, people)
			}
		}
	}
	a.Timeout = r.innerTimeout(st, stepKeys, m, keys, DefaultApprovalTimeout)
	return a
}

// approversAreNotAgents refuses an approver the definition itself shows
// to be an agent: one its ask_agent steps ask. (Agents known to the hub are
// checked online, by apply.)
func (r *reader) approversAreNotAgents(d *Definition) {
	agents := map[string]string{} // name or npub -> the step that asks it
	for _, st := range d.Steps {
		if st.AskAgent != nil && st.AskAgent.Agent != "" {
			agents[strings.TrimPrefix(st.AskAgent.Agent, "@")] = st.ID
		}
	}
	for _, st := range d.Steps {
		if st.Approval == nil {
			continue
		}
		for i, s := range st.Approval.Approvers {
			if step, ok := agents[strings.TrimPrefix(s, "@")]; ok {
				r.errs.add(st.Approval.approverPos[i], "approver %s is an agent (step %s asks it): agents never approve; name a person, or owner, channel-admins or channel-owners", s, step)
			}
		}
	}
}

// Human writes a duration the way definitions do: 4h, 20m, 7d.
func Human(d time.Duration) string { return human(d) }
