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

// findKey handles a key while the find prompt is open: text edits the
// query, Enter or Up (or the find key again) shows the next older match,
// Down or Alt-Enter the next newer (Shift-Enter too: Update), Esc closes
// it and goes back.
func (m *Model) findKey(k tea.KeyMsg) {
	f := m.finding
	switch {
	case m.keys.is(k, "close"):
		m.finding = nil
		if f.atBottom {
			m.timeline.GotoBottom()
		} else {
			m.timeline.SetYOffset(f.offset)
		}
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
		m.findStep(1)
	case k.Type == tea.KeyEnter, k.Type == tea.KeyUp, m.keys.is(k, "find"):
		m.findStep(-1)
	}
}

// findStep shows the match d away (-1: older, 1: newer); the first step
// shows the newest match.
func (m *Model) findStep(d int) {
	f := m.finding
	ids := m.findMatches()
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

// findMatches are the ids of the open view's rows (oldest first) whose
// displayed text contains the query, case-insensitive.
func (m *Model) findMatches() []string {
	if m.finding == nil || m.finding.query == "" {
		return nil
	}
	var out []string
	for _, r := range m.rows() {
		if m.findHit(r) {
			out = append(out, r.ID)
		}
	}
	return out
}

// findHit reports whether row r's displayed text contains the query.
func (m *Model) findHit(r chat.Row) bool {
	if m.finding == nil || m.finding.query == "" || r.Deleted {
		return false
	}
	return strings.Contains(strings.ToLower(clean(m.chat.Text(r), true)), strings.ToLower(m.finding.query))
}

// findState is what the find prompt changes in the timeline's look.
func (m *Model) findState() string {
	if m.finding == nil {
		return ""
	}
	return m.finding.query + "\x00" + m.finding.at
}

// findScroll brings the match to show to the top of the timeline once the
// timeline is rendered (a line of context above it).
func (m *Model) findScroll(at map[string]int) {
	if m.finding == nil || !m.finding.jump {
		return
	}
	m.finding.jump = false
	if line, ok := at[m.finding.at]; ok {
		m.timeline.SetYOffset(max(0, line-1))
	}
}

// findLine is the find prompt in the info line: the query, the count and
// the keys, or the one line saying nothing loaded matches.
func (m *Model) findLine() string {
	f := m.finding
	ids := m.findMatches()
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
