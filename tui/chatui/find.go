package chatui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ainb/hive/client/chat"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// finder is the find prompt over the open view's loaded rows: the query,
// the match shown, and where the view was when it opened (Esc goes back).
type finder struct {
	query    string
	at       string // the row of the match shown, "" before the first Enter
	jump     bool   // scroll to at once the timeline is rendered
	offset   int    // the timeline's first line when the prompt opened
	atBottom bool   // the timeline was at the bottom when the prompt opened
}

// findStyle marks the query's occurrences in matched rows.
var findStyle = lipgloss.NewStyle().Reverse(true).Underline(true)

// openFind opens the find prompt, remembering where the view is.
func (m *Model) openFind() {
	m.finding = &finder{offset: m.timeline.YOffset, atBottom: m.timeline.AtBottom()}
}

// rowText is a row's text as the timeline shows it (what find matches).
func (m *Model) rowText(r chat.Row) string { return clean(m.chat().Text(r), true) }

// findKey gives a key to the find prompt; Esc closes it and goes back.
func (m *Model) findKey(k tea.KeyMsg) {
	f := m.finding
	if !f.update(k, m.keys, m.rows(), m.rowText) {
		return
	}
	m.finding = nil
	if f.atBottom {
		m.timeline.GotoBottom()
	} else {
		m.timeline.SetYOffset(f.offset)
	}
}

// findScroll brings the match to show to the top of the timeline once the
// timeline is rendered (a line of context above it).
func (m *Model) findScroll(at map[string]int) {
	if line, ok := m.finding.jumpTo(at); ok {
		m.timeline.SetYOffset(max(0, line-1))
	}
}

// update handles a key while the prompt is open: text edits the query,
// Enter or Up (or the find key again) shows the next older match, Down or
// Alt-Enter the next newer (Shift-Enter too: Update); it reports whether
// the key (Esc) closes it. rows are the open view's, text what each shows.
func (f *finder) update(k tea.KeyMsg, km KeyMap, rows []chat.Row, text func(chat.Row) string) (closed bool) {
	switch {
	case km.is(k, "close"):
		return true
	case k.Type == tea.KeyRunes || k.Type == tea.KeySpace:
		f.query += string(k.Runes)
		f.at = ""
	case k.Type == tea.KeyBackspace:
		if r := []rune(f.query); len(r) > 0 {
			f.query = string(r[:len(r)-1])
		}
		f.at = ""
	case k.Type == tea.KeyCtrlU:
		f.query, f.at = "", ""
	case k.Type == tea.KeyEnter && k.Alt, k.Type == tea.KeyDown:
		f.step(1, rows, text)
	case k.Type == tea.KeyEnter, k.Type == tea.KeyUp, km.is(k, "find"):
		f.step(-1, rows, text)
	}
	return false
}

// step shows the match d away (-1: older, 1: newer); the first step shows
// the newest match.
func (f *finder) step(d int, rows []chat.Row, text func(chat.Row) string) {
	ids := f.matches(rows, text)
	if len(ids) == 0 {
		f.at = ""
		return
	}
	i := len(ids) - 1
	if j := slices.Index(ids, f.at); j >= 0 {
		i = max(0, min(len(ids)-1, j+d))
	}
	f.at, f.jump = ids[i], true
}

// matches are the ids of rows (oldest first) whose text contains the
// query, case-insensitive.
func (f *finder) matches(rows []chat.Row, text func(chat.Row) string) []string {
	var out []string
	for _, r := range rows {
		if f.hit(r, text) {
			out = append(out, r.ID)
		}
	}
	return out
}

// hit reports whether row r's text contains the query (false without a
// prompt open: f is nil).
func (f *finder) hit(r chat.Row, text func(chat.Row) string) bool {
	if f == nil || f.query == "" || r.Deleted {
		return false
	}
	return strings.Contains(strings.ToLower(text(r)), strings.ToLower(f.query))
}

// shown is the row of the match shown ("" for none).
func (f *finder) shown() string {
	if f == nil {
		return ""
	}
	return f.at
}

// state is what the prompt changes in the timeline's look.
func (f *finder) state() string {
	if f == nil {
		return ""
	}
	return f.query + "\x00" + f.at
}

// jumpTo is the line of the match to scroll to, once, after a step.
func (f *finder) jumpTo(at map[string]int) (int, bool) {
	if f == nil || !f.jump {
		return 0, false
	}
	f.jump = false
	line, ok := at[f.at]
	return line, ok
}

// view is the prompt in the info line: the query, the count and the keys,
// or the one line saying nothing loaded matches.
func (f *finder) view(rows []chat.Row, text func(chat.Row) string) string {
	ids := f.matches(rows, text)
	var state string
	switch {
	case f.query == "":
		state = "type to find in the loaded messages (/search TEXT searches the hub)"
	case len(ids) == 0:
		state = fmt.Sprintf("no loaded message contains %q · /search asks the hub", f.query)
	case slices.Index(ids, f.at) >= 0:
		state = fmt.Sprintf("match %d of %d · Enter/↑ older · ↓ newer · Esc back", len(ids)-slices.Index(ids, f.at), len(ids))
	default:
		state = fmt.Sprintf("%d matches · Enter jumps to the newest · Esc back", len(ids))
	}
	return "find: " + f.query + "▏ · " + state
}

// highlight marks every case-insensitive occurrence of q in s.
func highlight(s, q string) string {
	if q == "" {
		return s
	}
	var b strings.Builder
	low, lq := strings.ToLower(s), strings.ToLower(q)
	for {
		i := strings.Index(low, lq)
		if i < 0 || len(low) != len(s) { // lowering changed the byte length: mark nothing rather than the wrong bytes
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(findStyle.Render(s[i : i+len(lq)]))
		s, low = s[i+len(lq):], low[i+len(lq):]
	}
}
