package workflow

import "fmt"

// Summary describes each trigger in one line, in the order of on:.
func (t Triggers) Summary() []string {
	var out []string
	if m := t.Message; m != nil {
		s := "message from " + m.From.String()
		if m.When != nil {
			s += " when " + m.When.Source
		}
		out = append(out, s)
	}
	if r := t.Reaction; r != nil {
		s := "reaction from " + r.From.String()
		if r.Emoji != "" {
			s += " " + r.Emoji
		}
		out = append(out, s)
	}
	for _, s := range t.Schedule {
		out = append(out, fmt.Sprintf("schedule %s %s (max_late %s)", s.Schedule.Cron.Text, s.Schedule.Loc, human(s.MaxLate)))
	}
	if t.Webhook != nil {
		out = append(out, "webhook")
	}
	if m := t.Manual; m != nil {
		s := "manual by " + m.RunBy.String()
		for _, in := range m.Inputs {
			s += " " + in.Name + ":" + in.Type
		}
		out = append(out, s)
	}
	return out
}

func (f From) String() string {
	if f.Kind == "list" {
		return fmt.Sprint(f.Names)
	}
	return f.Kind
}

// Ref is a person or agent a definition names (@name or npub), and where.
type Ref struct {
	Ref      string // as written: @name or npub1…
	Where    string // e.g. "step gate's approvers"
	Approver bool   // an approver: must be a person
	Agent    bool   // an ask_agent's agent: must be an agent
}

// Refs are the names and keys the definition uses, for apply to resolve
// online. Roles (owner, channel-admins, channel-owners) are left out.
func (d *Definition) Refs() []Ref {
	var out []Ref
	add := func(where string, names []string, approver bool) {
		for _, n := range names {
			if !contains(approverRoles, n) {
				out = append(out, Ref{Ref: n, Where: where, Approver: approver})
			}
		}
	}
	if m := d.On.Message; m != nil {
		add("the message trigger's from", m.From.Names, false)
	}
	if r := d.On.Reaction; r != nil {
		add("the reaction trigger's from", r.From.Names, false)
	}
	if m := d.On.Manual; m != nil {
		add("the manual trigger's run_by", m.RunBy.Names, false)
	}
	for _, st := range d.Steps {
		switch {
		case st.Approval != nil:
			add("step "+st.ID+"'s approvers", st.Approval.Approvers, true)
		case st.DM != nil && st.DM.To != "":
			add("step "+st.ID+"'s dm to", []string{st.DM.To}, false)
		case st.Post != nil:
			add("step "+st.ID+"'s mention", st.Post.Mention, false)
		case st.AskAgent != nil && st.AskAgent.Agent != "":
			out = append(out, Ref{Ref: st.AskAgent.Agent, Where: "step " + st.ID + "'s agent", Agent: true})
		}
	}
	return out
}
