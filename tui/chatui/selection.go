package chatui

import (
	"slices"

	"github.com/ainb/hive/client/chat"
)

// rows are the rows of the open view: the thread when one is open, else
// the channel's main timeline (replies folded into their roots).
func (m *Model) rows() []chat.Row {
	if m.s.Thread() != "" {
		return m.chat().Thread(m.s.Thread())
	}
	return m.chat().Main(m.s.Current())
}

// lastRow is the newest message of the open view (own: the member's own).
func (m *Model) lastRow(own bool) string {
	rs := m.rows()
	for i := len(rs) - 1; i >= 0; i-- {
		if !rs[i].System && !rs[i].Deleted && (!own || m.chat().Own(rs[i].Author)) {
			return rs[i].ID
		}
	}
	return ""
}

// target is the message a command acts on: the selected one when the
// timeline has focus, else the newest of the view (own: of the member's).
func (m *Model) target(own bool) string {
	if m.focus == onTimeline && m.selected != "" {
		if r, ok := m.chat().Row(m.selected); ok && (!own || m.chat().Own(r.Author)) {
			return m.selected
		}
	}
	return m.lastRow(own)
}

// replyTarget is what a message sent in the open thread answers: the
// thread's root.
func (m *Model) replyTarget() string { return m.s.Thread() }

// moveSelection selects the message d rows away (the timeline takes focus).
func (m *Model) moveSelection(d int) {
	rs := slices.DeleteFunc(m.rows(), func(r chat.Row) bool { return r.System })
	if len(rs) == 0 {
		return
	}
	m.focus = onTimeline
	i := slices.IndexFunc(rs, func(r chat.Row) bool { return r.ID == m.selected })
	if i < 0 {
		i = len(rs)
	}
	i = max(0, min(len(rs)-1, i+d))
	m.selected = rs[i].ID
}

// openThread opens the thread of row id (its root's).
func (m *Model) openThread(id string) {
	r, ok := m.chat().Row(id)
	if !ok {
		m.say(false, "no message to open a thread on")
		return
	}
	if r.Root != "" {
		id = r.Root
	}
	m.s.OpenThread(id)
	m.selected = ""
	m.focus = onComposer
	m.say(false, "thread open: messages reply in it · Esc closes")
	m.timeline.GotoBottom()
}
