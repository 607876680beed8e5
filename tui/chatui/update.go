package chatui

import (
	"github.com/ainb/hive/client/session"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
)

// tickMsg comes every second: the connection state, typing and working
// signals age, read marks are checked.
type tickMsg struct{}

// doneMsg is the end of a command: a notice or an error for the info line,
// and what to do next.
type doneMsg struct {
	notice string
	err    error
	open   string // a channel to open (after a reload)
	reload bool   // the channel list changed
}

func tick() tea.Cmd { return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} }) }

// Init loads the channels and starts the clock.
func (m *Model) Init() tea.Cmd {
	m.say(false, "loading…")
	return tea.Batch(m.run(m.s.Load()), tick(), textarea.Blink)
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.layout()
	case session.Loaded, session.Reloaded, session.Older, session.Batch, session.Quoted, session.FeedEnded, session.Sent, session.Marked:
		cmds = append(cmds, m.take(msg))
	case searchedMsg:
		m.searched(msg)
	case doneMsg:
		later := "" // a notice about a channel to open is said once it is open
		switch {
		case msg.err != nil:
			m.say(true, errText(msg.err))
		case msg.open != "":
			later = msg.notice
		case msg.notice != "":
			m.say(false, msg.notice)
		}
		if msg.reload || msg.open != "" {
			cmds = append(cmds, m.reloadChannels(msg.open, later))
		}
	case quitMsg:
		return m, tea.Quit
	case tickMsg:
		m.connCheck()
		cmds = append(cmds, tick(), m.greetDue())
	case tea.FocusMsg:
		m.blurred = false
	case tea.BlurMsg:
		m.blurred = true
	case tea.MouseMsg:
		cmds = append(cmds, m.mouse(msg))
	case tea.KeyMsg:
		cmds = append(cmds, m.key(msg))
	case editedMsg:
		m.edited(msg)
	default:
		if shiftEnter(msg) && m.finding != nil {
			m.finding.step(1, m.rows(), m.rowText)
			break
		}
		if shiftEnter(msg) && m.focus == onComposer {
			m.composer.InsertRune('\n')
			break
		}
		var c tea.Cmd
		m.composer, c = m.composer.Update(msg)
		cmds = append(cmds, c, m.paneUpdate(msg))
	}
	cmds = append(cmds, m.later...)
	m.later = nil
	m.refresh()
	cmds = append(cmds, m.markRead())
	return m, tea.Batch(cmds...)
}

// quitMsg ends the program (from /quit).
type quitMsg struct{}

// key handles a key press: the global keys, then the focused part's.
func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	km := m.keys
	switch {
	case km.is(k, "quit"):
		return tea.Quit
	case m.help != nil:
		if m.help.update(k, km, m.h) {
			m.help = nil
		}
		return nil
	case m.finding != nil && !km.is(k, "page_up") && !km.is(k, "page_down") && !km.is(k, "bottom"):
		m.findKey(k)
		return nil
	case km.is(k, "find"):
		m.openFind()
		return nil
	case km.is(k, "help") || (k.String() == "?" && m.composer.Value() == "" && m.focus == onComposer):
		m.help = &helpView{}
		return nil
	case m.search != nil && !m.comp.active() && m.search.update(k, km):
		m.search = nil
		m.info.text = ""
		return nil
	case km.is(k, "close"):
		m.closeSomething()
		return nil
	case km.is(k, "agent"):
		if m.pane == nil {
			m.say(false, "no agent of yours to watch here")
			return nil
		}
		m.pane.open, m.focus = true, onAgent
		return nil
	case km.is(k, "next_channel"):
		m.step(1)
		return nil
	case km.is(k, "prev_channel"):
		m.step(-1)
		return nil
	case km.is(k, "next_unread"):
		m.nextUnread()
		return nil
	case km.is(k, "focus"):
		m.focus = (m.focus + 1) % onAgent
		if m.focus == onTimeline && m.selected == "" {
			m.selected = m.lastRow(false)
		}
		return nil
	case km.is(k, "select_up"):
		m.moveSelection(-1)
		return nil
	case km.is(k, "select_down"):
		m.moveSelection(1)
		return nil
	case km.is(k, "thread"):
		m.openThread(m.target(false))
		return nil
	case km.is(k, "page_up"):
		m.timeline.PageUp()
		if m.timeline.AtTop() {
			return m.olderPage()
		}
		return nil
	case km.is(k, "page_down"):
		m.timeline.PageDown()
		return nil
	case km.is(k, "bottom"):
		m.timeline.GotoBottom()
		return nil
	}
	switch m.focus {
	case onAgent:
		return m.paneUpdate(k)
	case onSidebar:
		return m.sidebarKey(k)
	case onTimeline:
		if cmd, ok := m.approvalKey(k); ok {
			return cmd
		}
		if k.String() == "enter" {
			m.openThread(m.selected)
			return nil
		}
		if k.Type != tea.KeyRunes {
			return nil
		}
		m.focus = onComposer // typing goes to the composer
	}
	return m.composerKey(k)
}

// closeSomething closes the innermost open thing.
func (m *Model) closeSomething() {
	switch {
	case m.comp.active():
		m.comp = completion{}
	case m.editing != "":
		m.editing = ""
		m.composer.Reset()
		m.say(false, "edit cancelled")
	case m.focus == onAgent:
		m.pane.open, m.focus = false, onComposer
	case m.s.Thread() != "":
		m.s.OpenThread("")
	case m.focus != onComposer:
		m.focus = onComposer
	default:
		m.info.text = ""
	}
}

// mouse scrolls the timeline with the wheel and opens a clicked channel.
func (m *Model) mouse(ev tea.MouseMsg) tea.Cmd {
	switch {
	case ev.Button == tea.MouseButtonWheelUp:
		m.timeline.ScrollUp(3)
		if m.timeline.AtTop() {
			return m.olderPage()
		}
	case ev.Button == tea.MouseButtonWheelDown:
		m.timeline.ScrollDown(3)
	case ev.Action == tea.MouseActionPress && ev.Button == tea.MouseButtonLeft && ev.X < m.sideWidth():
		if ev.Y >= 0 && ev.Y < len(m.sideLines) && m.sideLines[ev.Y] != "" {
			m.open(m.sideLines[ev.Y])
		}
	}
	return nil
}

// oneLine flattens text to one line for the info line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
