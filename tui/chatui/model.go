// Package chatui is `hive chat`: the terminal chat a member lives in. A
// sidebar of channels with unread and mention counts and the agents' working
// state, the current channel's timeline from the chat model (client/chat),
// a thread pane, a composer with @name completion and /commands, and a status
// line with the connection state. Every hub operation is the client call the
// CLI makes; everything shown from the hub is cleaned of terminal control.
package chatui

import (
	"context"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/client/session"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// Options are what the command line gives the chat.
type Options struct {
	Channel string // the channel to open first (id or name; "": the first one)
	Profile string // the profile in use, for the status line
	Pinned  bool   // the hub's TLS certificate is checked against a pin
	Keys    KeyMap // nil: DefaultKeys
	Editor  string // the command line of the member's editor ($VISUAL or $EDITOR)
	Now     func() time.Time
	// ObserverKey is the NIP-44 conversation key with an agent (the
	// member's own agents' frames open with it); nil: no agent pane.
	ObserverKey func(agent string) ([32]byte, error)
}

// focus is where keys go besides the global ones.
type focus int

const (
	onComposer focus = iota
	onTimeline
	onSidebar
	onAgent // the agent pane (its own keys: 1-9 answer, c cancels)
)

// Model is the chat's bubbletea model: the member's chat session (what
// comes from the hub and the open channel, thread and divider) and the
// view's own state (focus, selection, composer, panes, rendering).
type Model struct {
	ctx  context.Context
	s    *session.Session
	opt  Options
	keys KeyMap

	later      []tea.Cmd // commands apply asked for (profiles to fetch, presence)
	selected   string    // the selected row (timeline focus)
	editing    string    // the message the composer edits
	drafts     map[string]string
	greeting   greeting // answers to others coming online
	keepOffset bool     // rows came above the view: keep showing the same rows
	comp       completion

	focus     focus
	composer  textarea.Model
	timeline  viewport.Model
	sideLines []string    // channel id per sidebar line (mouse clicks)
	pane      *agentPane  // the member's own agent's live transcript, nil without one
	search    *searchView // the last /search's results while shown
	finding   *finder     // the find prompt while open
	help      *helpView   // the keys and commands while shown
	draw      drawCache   // what the timeline was drawn from, and its rendered rows
	blurred   bool        // the terminal lost focus: nothing is marked read
	info      infoLine
	conn      client.ConnState
	hub       string // the hub's URL (the last one connected)
	w, h      int
}

// infoLine is the line above the composer: a notice, or an error in red.
type infoLine struct {
	text string
	err  bool
}

// New is the chat over a connected client; Run starts it on the terminal.
func New(ctx context.Context, c *client.Client, opt Options) *Model {
	if opt.Keys == nil {
		opt.Keys = DefaultKeys()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "> "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.SetHeight(2)
	ta.KeyMap.InsertNewline = opt.Keys["newline"]
	ta.Focus()
	m := &Model{
		ctx: ctx, s: session.New(c), opt: opt, keys: opt.Keys,
		drafts: map[string]string{}, draw: drawCache{rows: map[string][]string{}, md: newMarkdown()}, composer: ta, timeline: viewport.New(60, 10),
		conn: client.ConnState{Connected: true}, hub: c.URL(), w: 80, h: 24,
	}
	m.s.Chat().SetClock(opt.Now)
	m.timeline.KeyMap = viewport.KeyMap{} // the chat's own keys scroll it
	m.layout()
	return m
}

// chat is the session's chat model.
func (m *Model) chat() *chat.Model { return m.s.Chat() }

// c is the hub connection.
func (m *Model) c() *client.Client { return m.s.Client() }

// run makes a session job a command (nil stays nil).
func (m *Model) run(j session.Job) tea.Cmd {
	if j == nil {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg { return j(ctx) }
}

// say puts one line in the info line: a notice, or an error in red.
func (m *Model) say(err bool, text string) {
	m.info = infoLine{clean(text, false), err}
}
