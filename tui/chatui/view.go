package chatui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// View draws the chat: the sidebar left; the channel header, the timeline
// (with the thread beside it on a wide terminal), the info line and the
// composer right; the status line at the bottom.
func (m *Model) View() string {
	if m.help != nil {
		return m.help.view(m.keys, m.w, m.h)
	}
	side := m.sidebar(m.h - 1)
	mainW := m.w - m.sideWidth() - 1
	body := m.timeline.View()
	if m.s.Thread() != "" && mainW >= 100 {
		left := bottomLines(m.lines(m.chat().Main(m.s.Current()), mainW-m.timeline.Width-1, false), m.timeline.Height)
		body = lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.NewStyle().Width(mainW-m.timeline.Width-1).Render(strings.Join(left, "\n")), dim.Render("│"), body)
	}
	if m.pane != nil && m.pane.open {
		body = m.paneView(mainW, m.timeline.Height)
	}
	if m.search != nil {
		body = m.search.view(mainW, m.timeline.Height)
	}
	body = lipgloss.NewStyle().Height(m.timeline.Height).MaxHeight(m.timeline.Height).Render(body)
	info := m.info.text
	if info == "" && !m.timeline.AtBottom() {
		info = "▲ scrolled up · " + m.keys["bottom"].Help().Key + " jumps to the newest"
	}
	switch {
	case m.finding != nil:
		info = bold.Render(truncate(m.finding.view(m.rows(), m.rowText), mainW))
	case m.info.err:
		info = errStyle.Render("✗ " + truncate(info, mainW-2))
	default:
		info = dim.Render(truncate(info, mainW))
	}
	main := lipgloss.JoinVertical(lipgloss.Left, m.header(mainW), body, info, m.composer.View())
	main = lipgloss.NewStyle().Width(mainW).MaxWidth(mainW).Render(main)
	sep := dim.Render(strings.TrimRight(strings.Repeat("│\n", m.h-1), "\n"))
	top := lipgloss.JoinHorizontal(lipgloss.Top, side, sep, main)
	top = lipgloss.NewStyle().Height(m.h - 1).MaxHeight(m.h - 1).Render(top)
	return top + "\n" + m.status()
}

// header names the open channel (and thread) with its topic.
func (m *Model) header(width int) string {
	ch := m.s.Channel()
	h := "#" + m.channelName(ch)
	if m.s.Thread() != "" {
		if r, ok := m.chat().Row(m.s.Thread()); ok {
			h += " › thread: " + truncate(oneLine(clean(m.chat().Text(r), false)), 30)
		}
	}
	if ch.About != "" {
		h += dim.Render(" · " + oneLine(clean(ch.About, false)))
	}
	return bold.Render(truncate(h, width))
}

// channelName is a channel's name as the sidebar shows it: a DM by the
// other participants' names.
func (m *Model) channelName(ch client.Channel) string {
	if ch.Type != "dm" {
		return clean(ch.Name, false) + m.goneMark(ch.ID)
	}
	var who []string
	for pk := range ch.Members {
		if pk != m.c().PublicKey() && pk != m.c().Member() {
			who = append(who, clean(m.chat().Names().Name(pk), false))
		}
	}
	if len(who) == 0 {
		return "dm"
	}
	return strings.Join(who, ", ") + m.goneMark(ch.ID)
}

// goneMark marks a channel the member was removed from while it was open.
func (m *Model) goneMark(id string) string {
	if m.s.Gone(id) {
		return " (left)"
	}
	return ""
}

// sidebar lists the channels and DMs with their unread and mention
// counts, then the agents with their working state.
func (m *Model) sidebar(height int) string {
	w := m.sideWidth()
	var lines []string
	m.sideLines = m.sideLines[:0]
	add := func(s, id string) {
		lines = append(lines, s)
		m.sideLines = append(m.sideLines, id)
	}
	for _, dm := range []bool{false, true} {
		title := "Channels"
		if dm {
			title = "DMs"
		}
		first := true
		for _, ch := range m.s.Channels() {
			if (ch.Type == "dm") != dm {
				continue
			}
			if first {
				add(dim.Render(title), "")
				first = false
			}
			add(m.sideEntry(ch, w), ch.ID)
		}
	}
	if agents := m.agentLines(w); len(agents) > 0 {
		add(dim.Render("Agents"), "")
		for _, a := range agents {
			add(a, "")
		}
	}
	if online := m.onlineLines(w); len(online) > 0 {
		add(dim.Render("Online"), "")
		for _, o := range online {
			add(o, "")
		}
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	return lipgloss.NewStyle().Width(w).Height(height).MaxHeight(height).Render(strings.Join(lines, "\n"))
}

// sideEntry is one channel's line: its name, "@n" for mentions, the unread count.
func (m *Model) sideEntry(ch client.Channel, w int) string {
	u := m.chat().Unread(ch.ID, m.s.Read())
	mark := "#"
	if ch.Type == "dm" {
		mark = "@"
	}
	count := ""
	if u.Mentions > 0 {
		count += fmt.Sprintf("@%d ", u.Mentions)
	}
	if u.Count > 0 {
		count += fmt.Sprint(u.Count)
	}
	name := truncate(mark+" "+m.channelName(ch), w-lipgloss.Width(count)-1)
	line := name + strings.Repeat(" ", max(1, w-lipgloss.Width(name)-lipgloss.Width(count))) + count
	switch {
	case ch.ID == m.s.Current() && m.focus == onSidebar:
		return reverse.Render(line)
	case ch.ID == m.s.Current():
		return bold.Render("▌" + line[min(len(line), 1):])
	case u.Count > 0:
		return bold.Render(line)
	}
	return line
}

// agentLines are the agents the member can see, each a name line and a
// state line: the channel it is working in and for how long, or idle.
func (m *Model) agentLines(w int) []string {
	names, now := m.chat().Names(), m.opt.Now()
	var out []string
	for _, pk := range m.s.Profiles() {
		if !names.IsAgent(pk) {
			continue
		}
		state := dim.Render("  idle")
		for _, ch := range m.s.Channels() {
			if wk := m.chat().Live().Working(pk, ch.ID, now); wk.Working {
				state = fmt.Sprintf("  working %ds #%s", int(now.Sub(wk.Since).Seconds()), m.channelName(ch))
				break
			}
		}
		if m.pane != nil && m.pane.agent == pk && m.pendingAsk() != "" {
			state = errStyle.Render(truncate("  ⚠ asks: "+clean(m.pendingAsk(), false), w))
		}
		out = append(out, truncate("⚙ "+clean(names.Name(pk), false), w), truncate(state, w))
	}
	return out
}

// onlineLines are the open channel's members (people, not agents) whose
// presence says online or away, by name.
func (m *Model) onlineLines(w int) []string {
	names, now := m.chat().Names(), m.opt.Now()
	var out []string
	for pk := range m.s.Channel().Members {
		if names.IsAgent(pk) {
			continue
		}
		p := m.chat().Live().Presence(pk, now)
		if m.chat().Own(pk) {
			p = "online" // this chat is running
		}
		switch p {
		case "online":
			out = append(out, truncate("● "+clean(names.Name(pk), false), w))
		case "away":
			out = append(out, truncate("◌ "+clean(names.Name(pk), false)+" (away)", w))
		}
	}
	slices.Sort(out)
	return out
}

// status is the bottom line: connection, hub, identity and profile.
func (m *Model) status() string {
	conn := m.connText()
	hub := m.hub
	if m.opt.Pinned && hub != "" {
		hub += " (pin ✓)"
	}
	who := clean(m.chat().Names().Label(m.c().PublicKey()), false)
	if m.opt.Profile != "" {
		who += " [" + m.opt.Profile + "]"
	}
	if n := m.s.Outbox().Len(); n > 0 {
		conn += fmt.Sprintf(" · %d sending", n)
	}
	s := fmt.Sprintf(" %s · %s · %s · ? help", conn, hub, who)
	if ask := m.pendingAsk(); ask != "" {
		s = fmt.Sprintf(" ⚠ permission asked: %s (%s) ·%s", clean(ask, false), m.keys["agent"].Help().Key, s)
	}
	return reverse.Render(truncate(s, m.w) + strings.Repeat(" ", max(0, m.w-lipgloss.Width(truncate(s, m.w)))))
}

// truncate cuts s (escapes kept whole) to width cells with an ellipsis.
func truncate(s string, width int) string {
	if width < 1 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// bottomLines are the last n lines.
func bottomLines(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}
