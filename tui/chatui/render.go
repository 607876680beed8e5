package chatui

import (
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/charmbracelet/lipgloss"
)

// Styles of the chat (the terminal's own colours; none are needed to read it).
var (
	dim      = lipgloss.NewStyle().Faint(true)
	bold     = lipgloss.NewStyle().Bold(true)
	reverse  = lipgloss.NewStyle().Reverse(true)
	errStyle = lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	nameSty  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("6"))
)

// groupGap is how far apart two messages of one author may be and still
// show under one name.
const groupGap = 5 * time.Minute

// sideWidth is the sidebar's width at the current terminal width.
func (m *Model) sideWidth() int { return max(16, min(26, m.w/5)) }

// layout sizes the parts to the terminal.
func (m *Model) layout() {
	mainW := m.w - m.sideWidth() - 1
	m.composer.SetWidth(max(10, mainW))
	m.timeline.Width = m.timelineWidth()
	m.timeline.Height = max(3, m.h-m.composer.Height()-3) // header, info line, status line
}

// timelineWidth is the scrolling view's width: the whole main area, or its
// right half when a thread sits beside the channel on a wide terminal.
func (m *Model) timelineWidth() int {
	w := m.w - m.sideWidth() - 1
	if m.thread != "" && w >= 100 {
		return w / 2
	}
	return max(10, w)
}

// refresh renders the open view into the timeline viewport, keeping the
// bottom in view when it was there.
func (m *Model) refresh() {
	m.layout()
	atBottom := m.timeline.AtBottom() || m.timeline.TotalLineCount() == 0
	m.timeline.SetContent(strings.Join(m.lines(m.rows(), m.timeline.Width, m.thread != ""), "\n"))
	if atBottom {
		m.timeline.GotoBottom()
	}
}

// lines renders rows (and, in the channel view, the pending messages).
func (m *Model) lines(rows []chat.Row, width int, inThread bool) []string {
	var out []string
	var prev *chat.Row
	for i := range rows {
		r := &rows[i]
		if r.ID == m.divider && !inThread {
			out = append(out, dim.Render(center(" new messages ", width, '─')))
			prev = nil
		}
		out = append(out, m.rowLines(*r, prev, width)...)
		prev = r
	}
	for _, p := range m.pending {
		if client.ChannelOf(p.ev) == m.cur && (inThread == (m.thread != "")) {
			out = append(out, wrap(dim.Render(stamp(p.ev.CreatedAt.Time())+" "+clean(m.chat.Names().Name(p.ev.PubKey), false)+": "+clean(p.text, true)+" (sending…)"), width, "      ")...)
		}
	}
	if len(out) == 0 {
		out = append(out, dim.Render("no messages yet"))
	}
	return out
}

// rowLines renders one row: time and name (only when the author changes
// or time passes), the text, the edited mark, reactions, the reply count.
func (m *Model) rowLines(r chat.Row, prev *chat.Row, width int) []string {
	when := stamp(r.CreatedAt.Time())
	if r.System {
		return wrap(dim.Render(when+" · "+clean(m.chat.Text(r), false)), width, "      ")
	}
	text := clean(m.chat.Text(r), true)
	if r.Deleted {
		text = dim.Render("(deleted)")
	}
	if r.Edited {
		text += dim.Render(" (edited)")
	}
	grouped := prev != nil && !prev.System && prev.Author == r.Author && r.CreatedAt.Time().Sub(prev.CreatedAt.Time()) < groupGap
	head := when + " " + nameSty.Render(clean(m.chat.Names().Label(r.Author), false)) + ": "
	if grouped {
		head = "      "
	}
	lines := wrap(head+text, width, "      ")
	if r.ID == m.selected && m.focus == onTimeline {
		lines[0] = reverse.Render(lines[0])
	}
	if len(r.Reactions) > 0 {
		var rx []string
		for _, x := range r.Reactions {
			rx = append(rx, fmt.Sprintf("%s %d", clean(x.Emoji, false), x.Count))
		}
		lines = append(lines, wrap("      "+strings.Join(rx, "  "), width, "      ")...)
	}
	if r.Replies > 0 && m.thread == "" {
		word := "replies"
		if r.Replies == 1 {
			word = "reply"
		}
		last := ""
		if th := m.chat.Thread(r.ID); len(th) > 1 {
			lr := th[len(th)-1]
			last = " · " + clean(m.chat.Names().Name(lr.Author), false) + ": " + oneLine(clean(m.chat.Text(lr), false))
		}
		lines = append(lines, dim.Render(truncate(fmt.Sprintf("      ↳ %d %s, last %s%s", r.Replies, word, stamp(r.LastReply.Time()), last), width)))
	}
	return lines
}

// stamp is a row's time: the clock time today, else the date too.
func stamp(t time.Time) string {
	if time.Since(t) < 20*time.Hour {
		return t.Format("15:04")
	}
	return t.Format("01-02 15:04")
}

// wrap breaks s to width, later lines indented.
func wrap(s string, width int, indent string) []string {
	w := lipgloss.NewStyle().Width(max(10, width-len(indent))).Render(s)
	lines := strings.Split(w, "\n")
	for i := 1; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], indent) {
			lines[i] = indent + lines[i]
		}
	}
	return lines
}

func center(s string, width int, fill rune) string {
	n := max(0, width-lipgloss.Width(s))
	return strings.Repeat(string(fill), n/2) + s + strings.Repeat(string(fill), n-n/2)
}
