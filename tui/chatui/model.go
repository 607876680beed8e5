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
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
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

// pending is a message signed and sent, waiting for the hub's OK.
type pending struct {
	ev   nostr.Event
	text string
}

// Model is the chat's bubbletea model.
type Model struct {
	ctx  context.Context
	c    *client.Client
	opt  Options
	keys KeyMap

	chat     *chat.Model
	events   map[string]nostr.Event // loaded rows by id: what react, edit, delete and reply act on
	channels []client.Channel       // the ones the member is in
	rp       chat.Positions
	profiles []string // keys with a profile (completion)
	loaded   bool
	feed     <-chan []nostr.Event
	stopFeed context.CancelFunc
	later    []tea.Cmd // commands apply asked for (profiles to fetch)

	cur        string // the open channel's id
	divider    string // the first unread row when the channel was opened
	thread     string // the open thread's root, "" when closed
	selected   string // the selected row (timeline focus)
	editing    string // the message the composer edits
	pending    []pending
	drafts     map[string]string
	helloed    time.Time       // when the chat last answered another's coming online
	gone       map[string]bool // channels the member was removed from while open
	atStart    map[string]bool // channels loaded back to their first row
	paging     bool            // an older page is on its way
	keepOffset bool            // rows came above the view: keep showing the same rows
	leaving    string          // the channel /leave left (not kept in view)
	comp       completion

	focus     focus
	composer  textarea.Model
	timeline  viewport.Model
	sideLines []string    // channel id per sidebar line (mouse clicks)
	pane      *agentPane  // the member's own agent's live transcript, nil without one
	search    *searchView // the last /search's results while shown
	finding   *finder     // the find prompt while open
	help      bool
	helpTop   int                 // the help's first line shown
	version   int                 // bumped by every change of what the timeline shows
	drawn     renderKey           // what the timeline was last rendered from
	drawnRows map[string][]string // rendered rows by everything their look depends on
	rowAt     map[string]int      // the timeline line each rendered row starts on
	md        *markdown
	blurred   bool // the terminal lost focus: nothing is marked read
	info      string
	infoErr   bool
	conn      client.ConnState
	hub       string // the hub's URL (the last one connected)
	w, h      int
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
		ctx: ctx, c: c, opt: opt, keys: opt.Keys,
		chat: c.NewModel(), events: map[string]nostr.Event{}, rp: chat.Positions{},
		drafts: map[string]string{}, gone: map[string]bool{}, atStart: map[string]bool{}, drawnRows: map[string][]string{}, md: newMarkdown(), composer: ta, timeline: viewport.New(60, 10),
		conn: client.ConnState{Connected: true}, hub: c.URL(), w: 80, h: 24,
	}
	m.chat.SetClock(opt.Now)
	m.timeline.KeyMap = viewport.KeyMap{} // the chat's own keys scroll it
	m.layout()
	return m
}

// channel is the open channel, or the zero Channel.
func (m *Model) channel() client.Channel {
	for _, ch := range m.channels {
		if ch.ID == m.cur {
			return ch
		}
	}
	return client.Channel{ID: m.cur, Name: m.cur}
}

// say puts one line in the info line: a notice, or an error in red.
func (m *Model) say(err bool, text string) {
	m.info, m.infoErr = clean(text, false), err
}
