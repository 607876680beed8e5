package chatui

import (
	"fmt"
	"strings"

	"github.com/ainb/hive/client"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// searchView is the result of /search, shown in place of the timeline
// until Esc.
type searchView struct {
	query string
	hits  []client.SearchHit
}

// searchedMsg is a search's end.
type searchedMsg struct {
	query string
	hits  []client.SearchHit
	err   error
}

// cmdSearch searches the messages the member can read (hive search).
func (m *Model) cmdSearch(arg string) tea.Cmd {
	c, ctx := m.c(), m.ctx
	return func() tea.Msg {
		hits, err := c.Search(ctx, arg, client.SearchOptions{Limit: 50})
		return searchedMsg{query: arg, hits: hits, err: err}
	}
}

func (m *Model) searched(msg searchedMsg) {
	if msg.err != nil {
		if strings.HasPrefix(client.RefusalReason(msg.err), "invalid: search:") {
			m.say(true, errText(msg.err)+" (/help: words, \"phrases\", prefix*, -word, from:NAME, in:CHANNEL)")
			return
		}
		m.say(true, "search: "+errText(msg.err))
		return
	}
	m.search = &searchView{query: msg.query, hits: msg.hits}
	m.say(false, fmt.Sprintf("%d results for %q · Esc closes", len(msg.hits), msg.query))
}

// update handles a key while the results are shown; it reports whether
// the key (Esc) closes them. Other keys go on to the chat.
func (v *searchView) update(k tea.KeyMsg, km KeyMap) (closed bool) { return km.is(k, "close") }

// view renders the results, width wide and height high.
func (v *searchView) view(width, height int) string {
	lines := []string{bold.Render(truncate("search: "+oneLine(clean(v.query, false)), width))}
	if len(v.hits) == 0 {
		lines = append(lines, dim.Render("no messages match"))
	}
	for _, h := range v.hits {
		ch := h.ChannelName
		if ch == "" {
			ch = h.Channel
		}
		line := fmt.Sprintf("%s #%s %s: %s", stamp(h.CreatedAt.Time()), clean(ch, false), nameSty.Render(clean(h.Name, false)), oneLine(clean(h.Excerpt, false)))
		lines = append(lines, truncate(line, width))
	}
	return lipgloss.NewStyle().Width(width).Height(height).MaxHeight(height).Render(strings.Join(bottomLines(lines, height), "\n"))
}
