package chatui

import (
	"slices"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// channelsMsg is a reloaded channel list, with the pages of channels not
// loaded before.
type channelsMsg struct {
	channels []client.Channel
	events   []nostr.Event
	open     string
	notice   string // said once open is open
	err      error
}

// reloadChannels loads the channel list again (a join, a leave, a new DM)
// and the first page of each new channel; then opens open ("" : stays)
// and says notice.
func (m *Model) reloadChannels(open, notice string) tea.Cmd {
	c, ctx := m.c, m.ctx
	had := map[string]bool{}
	for _, ch := range m.channels {
		had[ch.ID] = true
	}
	return func() tea.Msg {
		all, err := c.Channels(ctx)
		if err != nil {
			return channelsMsg{err: err}
		}
		out := channelsMsg{channels: m.joined(all), open: open, notice: notice}
		for _, ch := range out.channels {
			if !had[ch.ID] {
				evs, err := page(ctx, c, ch.ID)
				if err != nil {
					return channelsMsg{err: err}
				}
				out.events = append(out.events, evs...)
			}
		}
		return out
	}
}

// setChannels takes a reloaded list; a new channel restarts the live feed
// (the subscription names the channels).
func (m *Model) setChannels(msg channelsMsg) tea.Cmd {
	if msg.err != nil {
		m.say(true, errText(msg.err))
		return nil
	}
	before := m.channelIDs()
	if i := m.find(m.cur); i >= 0 && m.cur != m.leaving && !slices.ContainsFunc(msg.channels, func(ch client.Channel) bool { return ch.ID == m.cur }) {
		// removed (or the channel archived) while open: it stays in view,
		// marked, until another channel is opened; writing there gets the
		// hub's reason
		m.gone[m.cur] = true
		msg.channels = append(msg.channels, m.channels[i])
	}
	m.channels = msg.channels
	m.apply(msg.events)
	var cmd tea.Cmd
	if strings.Join(before, ",") != strings.Join(m.channelIDs(), ",") {
		m.follow(nostr.Now() - 10)
		cmd = m.next()
	}
	if msg.open != "" {
		// what was typed while the command ran is meant for the channel
		// it opens, not a draft left behind
		typed := m.composer.Value()
		if m.editing == "" {
			m.composer.SetValue("")
		}
		m.open(msg.open)
		if m.composer.Value() == "" {
			m.composer.SetValue(typed)
		}
	} else if m.find(m.cur) < 0 {
		m.openFirst()
	}
	if msg.notice != "" {
		m.say(false, msg.notice)
	}
	return cmd
}

// channelIDs are the channels the member is in (the live feed's).
func (m *Model) channelIDs() []string {
	var out []string
	for _, ch := range m.channels {
		if !m.gone[ch.ID] {
			out = append(out, ch.ID)
		}
	}
	return out
}

func (m *Model) find(id string) int {
	for i, ch := range m.channels {
		if ch.ID == id {
			return i
		}
	}
	return -1
}

// openFirst opens the channel the command line named, else the first.
func (m *Model) openFirst() {
	want := m.opt.Channel
	for _, ch := range m.channels {
		if want != "" && (ch.ID == want || strings.EqualFold(ch.Name, want)) {
			m.open(ch.ID)
			return
		}
	}
	if want != "" {
		m.say(true, "you are not in a channel "+want+": /join "+want)
	}
	if len(m.channels) > 0 {
		m.open(m.channels[0].ID)
	} else if want == "" {
		m.say(false, "you are in no channel yet: /join NAME or /dm NAME")
	}
}

// open makes id the current channel: the composer keeps each channel's
// draft, the new-messages divider is frozen at the first unread row.
func (m *Model) open(id string) {
	if id == m.cur {
		return
	}
	if m.cur != "" && m.editing == "" {
		m.drafts[m.cur] = m.composer.Value()
	}
	if m.gone[m.cur] {
		m.channels = slices.DeleteFunc(m.channels, func(ch client.Channel) bool { return ch.ID == m.cur })
		delete(m.gone, m.cur)
	}
	m.cur, m.thread, m.selected, m.editing = id, "", "", ""
	m.comp, m.finding = completion{}, nil
	m.composer.SetValue(m.drafts[id])
	m.divider = m.chat.Unread(id, m.rp).FirstUnread
	m.refresh()
	m.timeline.GotoBottom()
}

// step opens the next (+1) or previous (-1) channel.
func (m *Model) step(d int) {
	if len(m.channels) == 0 {
		return
	}
	i := m.find(m.cur)
	m.open(m.channels[(i+d+len(m.channels))%len(m.channels)].ID)
}

// nextUnread opens the next channel with unread mentions, else with unread
// rows, after the current one in sidebar order.
func (m *Model) nextUnread() {
	n := len(m.channels)
	start := m.find(m.cur)
	for _, mentions := range []bool{true, false} {
		for d := 1; d <= n; d++ {
			ch := m.channels[(start+d+n)%n]
			u := m.chat.Unread(ch.ID, m.rp)
			if ch.ID != m.cur && ((mentions && u.Mentions > 0) || (!mentions && u.Count > 0)) {
				m.open(ch.ID)
				return
			}
		}
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
// while the terminal is focused and the timeline is at the bottom (the chat
// model's rule); the read state syncs to the member's other devices.
func (m *Model) markRead() tea.Cmd {
	if m.cur == "" || m.blurred || m.help || !m.timeline.AtBottom() {
		return nil
	}
	marks := map[string]nostr.Timestamp{}
	if at := m.chat.Newest(m.cur); at > m.rp[m.cur] {
		marks[m.cur] = at
	}
	if m.thread != "" {
		if r, ok := m.chat.Row(m.thread); ok && r.LastReply > m.rp[chat.ThreadContext(m.thread)] {
			marks[chat.ThreadContext(m.thread)] = r.LastReply
		}
	}
	if len(marks) == 0 {
		return nil
	}
	c, ctx := m.c, m.ctx
	for k, at := range marks {
		m.rp[k] = at
	}
	return func() tea.Msg {
		for k, at := range marks {
			if err := c.MarkRead(ctx, k, at); err != nil {
				return doneMsg{err: err}
			}
		}
		return nil
	}
}
