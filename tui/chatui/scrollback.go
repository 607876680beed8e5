package chatui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// olderMsg is a page of older rows of one channel.
type olderMsg struct {
	channel string
	evs     []nostr.Event
	rows    int // how many of evs are rows (the rest are overlays)
	err     error
}

// olderPage loads the page before the oldest loaded row of the open
// channel, unless one is on its way or the channel's start is loaded.
func (m *Model) olderPage() tea.Cmd {
	if m.paging || m.atStart[m.cur] {
		return nil
	}
	_, at, ok := m.chat.Oldest(m.cur)
	if !ok {
		return nil
	}
	m.paging = true
	c, ctx, ch := m.c, m.ctx, m.cur
	before := at - 1 // the oldest loaded second is loaded whole (client.FetchPage)
	return func() tea.Msg {
		p, err := c.FetchPage(ctx, ch, pageSize, &before)
		return olderMsg{channel: ch, evs: p.Events, rows: p.Rows, err: err}
	}
}

// older takes a page: the rows merge above what is shown, the view stays
// on the row it showed; a page shorter than asked is the channel's start.
func (m *Model) older(msg olderMsg) tea.Cmd {
	m.paging = false
	if msg.err != nil {
		m.say(true, "older messages: "+errText(msg.err))
		return nil
	}
	before := m.chat.Len(msg.channel)
	m.apply(msg.evs)
	added := m.chat.Len(msg.channel) - before
	if msg.channel == m.cur && added > 0 {
		m.keepOffset = true
	}
	if msg.rows < pageSize {
		m.atStart[msg.channel] = true
	}
	return nil
}

// startLine is the line above a channel's first row once it is loaded.
func (m *Model) startLine() string {
	if !m.atStart[m.cur] || m.thread != "" {
		return ""
	}
	return dim.Render("· the beginning of #" + m.channelName(m.channel()))
}
