package chatui

import tea "github.com/charmbracelet/bubbletea"

// olderPage loads the page before the oldest loaded row of the open
// channel, unless one is on its way or the channel's start is loaded.
func (m *Model) olderPage() tea.Cmd { return m.run(m.s.Older()) }

// startLine is the line above a channel's first row once it is loaded.
func (m *Model) startLine() string {
	if !m.s.AtStart(m.s.Current()) || m.s.Thread() != "" {
		return ""
	}
	return dim.Render("· the beginning of #" + m.channelName(m.s.Channel()))
}
