package chatui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// helpView is the keys and the slash commands, shown over the chat; top
// is its first line shown.
type helpView struct{ top int }

// update scrolls the help with a key; it reports whether the key closes it.
func (v *helpView) update(k tea.KeyMsg, km KeyMap, height int) (closed bool) {
	switch {
	case km.is(k, "close") || km.is(k, "help") || k.String() == "?" || k.String() == "q":
		return true
	case k.String() == "up" || k.String() == "k":
		v.top = max(0, v.top-1)
	case k.String() == "down" || k.String() == "j":
		v.top++
	case km.is(k, "page_up"):
		v.top = max(0, v.top-(height-2))
	case km.is(k, "page_down") || k.String() == " ":
		v.top += height - 2
	}
	return false
}

// view lists the keys and the slash commands, w wide and h high.
func (v *helpView) view(km KeyMap, w, h int) string {
	lines := []string{bold.Render("hive chat: keys (" + KeysFile + " in $HIVE_HOME rebinds them)"), ""}
	lines = append(lines, km.helpLines()...)
	lines = append(lines, "", bold.Render("commands"))
	for _, c := range commands() {
		lines = append(lines, fmt.Sprintf("/%-22s %s", strings.TrimSpace(c.name+" "+c.args), c.help))
	}
	for i := range lines {
		lines[i] = truncate(lines[i], w)
	}
	foot := dim.Render(truncate("↑ ↓ PgUp PgDn scroll · Esc, ? or q closes this help", w))
	n := max(1, h-1)
	v.top = min(v.top, max(0, len(lines)-n))
	lines = lines[v.top:min(len(lines), v.top+n)]
	return lipgloss.NewStyle().Height(h).MaxHeight(h).Render(strings.Join(append(lines, foot), "\n"))
}
