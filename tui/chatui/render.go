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

// maxComposer is the most lines the composer grows to (it scrolls beyond).
const maxComposer = 8

// groupGap is how far apart two messages of one author may be and still
// show under one name.
const groupGap = 5 * time.Minute

// sideWidth is the sidebar's width at the current terminal width.
func (m *Model) sideWidth() int { return max(16, min(26, m.w/5)) }

// layout sizes the parts to the terminal.
func (m *Model) layout() {
	mainW := m.w - m.sideWidth() - 1
	m.composer.SetWidth(max(10, mainW))
	m.composer.SetHeight(min(maxComposer, m.composer.LineCount()+1, max(2, m.h/3))) // a spare line: a new one never scrolls it
	m.timeline.Width = m.timelineWidth()
	m.timeline.Height = max(3, m.h-m.composer.Height()-3) // header, info line, status line
}

// timelineWidth is the scrolling view's width: the whole main area, or its
// right half when a thread sits beside the channel on a wide terminal.
func (m *Model) timelineWidth() int {
	w := m.w - m.sideWidth() - 1
	if m.s.Thread() != "" && w >= 100 {
		return w / 2
	}
	return max(10, w)
}

// drawCache is what the timeline was last drawn from and the rows drawn.
type drawCache struct {
	version int                 // bumped by every change of what the timeline shows
	drawn   renderKey           // what the timeline was last rendered from
	rows    map[string][]string // rendered rows by everything their look depends on
	rowAt   map[string]int      // the timeline line each rendered row starts on
	md      *markdown
}

// renderKey is everything the timeline's rendering depends on: a
// keystroke in the composer changes none of it, so it redraws nothing.
type renderKey struct {
	version, width, height, pending       int
	atStart                               bool
	cur, thread, selected, divider, focus string
	day                                   int
	find                                  string
}

// refresh renders the open view into the timeline viewport, keeping the
// bottom in view when it was there; unchanged input is not rendered again.
func (m *Model) refresh() {
	m.layout()
	k := renderKey{m.draw.version, m.timeline.Width, m.timeline.Height, m.s.Outbox().Len(), m.s.AtStart(m.s.Current()), m.s.Current(), m.s.Thread(), m.selected, m.s.Divider(), fmt.Sprint(m.focus), m.opt.Now().YearDay(), m.finding.state()}
	if k != m.draw.drawn {
		m.draw.drawn = k
		m.render()
	}
	m.findScroll(m.draw.rowAt)
}

// render sets the timeline's content from the open view.
func (m *Model) render() {
	atBottom := m.timeline.AtBottom() || m.timeline.TotalLineCount() == 0
	total, offset := m.timeline.TotalLineCount(), m.timeline.YOffset
	m.draw.rowAt = map[string]int{}
	var lines []string
	if s := m.startLine(); s != "" {
		lines = append(lines, s)
	}
	lines = append(lines, m.linesAt(m.rows(), m.timeline.Width, m.s.Thread() != "", len(lines), m.draw.rowAt)...)
	m.timeline.SetContent(strings.Join(lines, "\n"))
	switch {
	case m.keepOffset && !atBottom:
		m.timeline.SetYOffset(offset + m.timeline.TotalLineCount() - total)
	case atBottom:
		m.timeline.GotoBottom()
	}
	m.keepOffset = false
}

// lines renders rows (and, in the channel view, the pending messages).
func (m *Model) lines(rows []chat.Row, width int, inThread bool) []string {
	return m.linesAt(rows, width, inThread, 0, nil)
}

// linesAt is lines, noting in at (unless nil) the line each row starts
// on, counted from first.
func (m *Model) linesAt(rows []chat.Row, width int, inThread bool, first int, at map[string]int) []string {
	var out []string
	var prev *chat.Row
	labels := map[string]string{} // a name is looked up once a render
	for i := range rows {
		r := &rows[i]
		if r.ID == m.s.Divider() && !inThread {
			out = append(out, dim.Render(center(" new messages ", width, '─')))
			prev = nil
		}
		label, ok := labels[r.Author]
		if !ok {
			label = clean(m.chat().Names().Label(r.Author), false)
			labels[r.Author] = label
		}
		if at != nil {
			at[r.ID] = first + len(out)
		}
		out = append(out, m.rowLines(*r, prev, label, width)...)
		prev = r
	}
	for _, p := range m.s.Outbox().Items() {
		if client.ChannelOf(p.Event) == m.s.Current() && (inThread == (m.s.Thread() != "")) {
			out = append(out, wrap(dim.Render(stamp(p.Event.CreatedAt.Time())+" "+clean(m.chat().Names().Name(p.Event.PubKey), false)+": "+clean(p.Text, true)+" (sending…)"), width, "      ")...)
		}
	}
	if len(out) == 0 {
		out = append(out, dim.Render("no messages yet"))
	}
	return out
}

// rowLines renders one row: time and name (only when the author changes
// or time passes), the text (markdown), the edited mark, reactions, a
// workflow run's badge, the reply count. A row drawn before with the same look comes from the cache.
func (m *Model) rowLines(r chat.Row, prev *chat.Row, label string, width int) []string {
	when := stamp(r.CreatedAt.Time())
	grouped := prev != nil && !prev.System && prev.Author == r.Author && r.CreatedAt.Time().Sub(prev.CreatedAt.Time()) < groupGap
	selected := r.ID == m.selected && m.focus == onTimeline || r.ID == m.finding.shown() && r.ID != ""
	found := ""
	if m.finding.hit(r, m.rowText) && !selected { // a reversed line keeps no marks inside (their reset would end it)
		found = m.finding.query
	}
	last := ""
	if r.Replies > 0 && m.s.Thread() == "" {
		if th := m.chat().Thread(r.ID); len(th) > 1 {
			lr := th[len(th)-1]
			last = " · " + clean(m.chat().Names().Name(lr.Author), false) + ": " + oneLine(clean(m.chat().Text(lr), false))
		}
	}
	quote := ""
	if r.Quote != nil && !r.Deleted {
		quote = oneLine(clean(r.Quote.Line(), false))
	}
	var k strings.Builder
	fmt.Fprintf(&k, "%s\x00%s\x00%s\x00%s\x00%d%t%t%t%t%t\x00%d\x00%d\x00%s\x00%d\x00%s\x00%s", r.ID, m.chat().Text(r), when, label, width, r.System, r.Deleted, r.Edited, grouped, selected, r.Replies, r.LastReply, last, len(r.Reactions), found, quote)
	for _, x := range r.Reactions {
		fmt.Fprintf(&k, "\x00%s %d", x.Emoji, x.Count)
	}
	if r.Run != nil {
		k.WriteString("\x00run " + r.Run.Words(time.Local))
	}
	key := k.String()
	if out, ok := m.draw.rows[key]; ok {
		return out
	}
	out := m.drawRow(r, rowLook{when, label, grouped, selected, last, found, quote}, width)
	if len(m.draw.rows) >= markdownCacheMax {
		clear(m.draw.rows)
	}
	m.draw.rows[key] = out
	return out
}

// rowLook is what a row's look depends on besides the row: its time and
// author label, whether it is grouped under the previous row's name or
// selected, the latest reply's line, and the find query it matches.
type rowLook struct {
	when, label       string
	grouped, selected bool
	last, found       string
	quote             string // the quoted message's line (chat.Quote.Line), "" for none
}

// drawRow renders one row (rowLines caches it).
func (m *Model) drawRow(r chat.Row, look rowLook, width int) []string {
	const indent = "      "
	when, label, grouped, selected, last := look.when, look.label, look.grouped, look.selected, look.last
	if r.System {
		return wrap(dim.Render(when+" · "+highlight(clean(m.chat().Text(r), false), look.found)), width, indent)
	}
	head := when + " " + nameSty.Render(label) + ": "
	if grouped {
		head = indent
	}
	text := clean(m.chat().Text(r), true)
	var quoted []string // the quote's line, then the message under it
	if look.quote != "" {
		quoted = []string{head + dim.Render(truncate("┃ "+look.quote, max(10, width-lipgloss.Width(head))))}
		head = indent
	}
	edited := ""
	if r.Edited {
		edited = dim.Render(" (edited)")
	}
	var lines []string
	switch {
	case r.Deleted:
		lines = wrap(head+dim.Render("(deleted)"), width, indent)
	case !looksLikeMarkdown(text):
		lines = wrap(head+highlight(text, look.found)+edited, width, indent)
	default:
		body := m.draw.md.lines(text, width-len(indent))
		body[len(body)-1] += edited
		if lipgloss.Width(head+body[0]) <= width {
			lines = append(lines, head+body[0])
			body = body[1:]
		} else {
			lines = append(lines, strings.TrimRight(head, " "))
		}
		for _, l := range body {
			lines = append(lines, indent+l)
		}
	}
	if len(quoted) > 0 {
		if text == "" && !r.Deleted { // a quote alone
			lines = nil
		}
		lines = append(quoted, lines...)
	}
	if selected {
		lines[0] = reverse.Render(lines[0])
	}
	if len(r.Reactions) > 0 {
		var rx []string
		for _, x := range r.Reactions {
			rx = append(rx, fmt.Sprintf("%s %d", clean(x.Emoji, false), x.Count))
		}
		lines = append(lines, wrap(indent+strings.Join(rx, "  "), width, indent)...)
	}
	if r.Run != nil && !r.Deleted {
		lines = append(lines, dim.Render(truncate(indent+"⚙ "+clean(r.Run.Words(time.Local), false), width)))
	}
	if r.Replies > 0 && m.s.Thread() == "" {
		word := "replies"
		if r.Replies == 1 {
			word = "reply"
		}
		lines = append(lines, dim.Render(truncate(fmt.Sprintf("%s↳ %d %s, last %s%s", indent, r.Replies, word, stamp(r.LastReply.Time()), last), width)))
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
