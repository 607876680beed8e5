package chatui

import (
	"github.com/ainb/hive/client/session"
	tea "github.com/charmbracelet/bubbletea"
)

// reloadChannels loads the channel list again (a join, a leave, a new DM)
// and the first page of each new channel; then opens open ("" : stays)
// and says notice.
func (m *Model) reloadChannels(open, notice string) tea.Cmd {
	return m.run(m.s.Reload(open, notice))
}

// setChannels takes a reloaded list; a new channel restarts the live feed
// (the subscription names the channels).
func (m *Model) setChannels(msg session.Reloaded) tea.Cmd {
	if msg.Err != nil {
		m.say(true, errText(msg.Err))
		return nil
	}
	a, restarted := m.s.TakeReloaded(m.ctx, msg)
	m.applied(a)
	var cmd tea.Cmd
	if restarted {
		cmd = m.run(m.s.Next())
	}
	if msg.Open != "" {
		// what was typed while the command ran is meant for the channel
		// it opens, not a draft left behind
		typed := m.composer.Value()
		if m.editing == "" {
			m.composer.SetValue("")
		}
		m.open(msg.Open)
		if m.composer.Value() == "" {
			m.composer.SetValue(typed)
		}
	} else if !m.s.Has(m.s.Current()) {
		m.openFirst()
	}
	if msg.Notice != "" {
		m.say(false, msg.Notice)
	}
	return cmd
}

// openFirst opens the channel the command line named, else the first.
func (m *Model) openFirst() {
	want := m.opt.Channel
	if id := m.s.Find(want); want != "" && id != "" {
		m.open(id)
		return
	}
	if want != "" {
		m.say(true, "you are not in a channel "+want+": /join "+want)
	}
	if chs := m.s.Channels(); len(chs) > 0 {
		m.open(chs[0].ID)
	} else if want == "" {
		m.say(false, "you are in no channel yet: /join NAME or /dm NAME")
	}
}

// open makes id the current channel: the composer keeps each channel's
// draft, the new-messages divider is frozen at the first unread row.
func (m *Model) open(id string) {
	if id == m.s.Current() {
		return
	}
	if cur := m.s.Current(); cur != "" && m.editing == "" {
		m.drafts[cur] = m.composer.Value()
	}
	m.s.Open(id)
	m.selected, m.editing = "", ""
	m.comp, m.finding = completion{}, nil
	m.composer.SetValue(m.drafts[id])
	m.refresh()
	m.timeline.GotoBottom()
}

// step opens the next (+1) or previous (-1) channel.
func (m *Model) step(d int) {
	if id := m.s.Step(d); id != "" {
		m.open(id)
	}
}

// nextUnread opens the next channel with unread mentions, else with unread
// rows, after the current one in sidebar order.
func (m *Model) nextUnread() {
	if id := m.s.NextUnread(); id != "" {
		m.open(id)
		return
	}
	m.say(false, "no unread messages")
}

// sidebarKey moves through the channels with the arrows; Enter focuses
// the composer.
func (m *Model) sidebarKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "up", "k":
		m.step(-1)
	case "down", "j":
		m.step(1)
	case "enter":
		m.focus = onComposer
	}
	return nil
}

// markRead marks the open channel (and thread) read up to its newest row
// while the terminal is focused, no help covers it and the timeline is at
// the bottom; the read state syncs to the member's other devices.
func (m *Model) markRead() tea.Cmd {
	return m.run(m.s.Mark(!m.blurred && m.help == nil && m.timeline.AtBottom()))
}
