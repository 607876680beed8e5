// Package agentwatch is the terminal view of an agent's live transcript
// (`hive agent watch`), a bubbletea model any terminal chat can embed as a
// pane: it folds observer frames with observer.Transcript and answers
// permission requests and cancels turns through control frames.
package agentwatch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/client/observer"
	tea "github.com/charmbracelet/bubbletea"
)

// Send publishes a control frame to the watched agent.
type Send func(ctx context.Context, c observer.Control) error

// Model is the bubbletea model of the watch; the transcript itself is
// observer.Transcript's pure reducer.
type Model struct {
	ctx    context.Context
	send   Send
	frames <-chan observer.Frame
	tr     *observer.Transcript
	status string
	width  int
}

type frameMsg struct{ f observer.Frame }
type framesDone struct{}
type statusMsg string

// New is the model of a watch of agent fed by frames (closed when the
// subscription ends); send answers the agent.
func New(ctx context.Context, agent string, frames <-chan observer.Frame, send Send) Model {
	return Model{ctx: ctx, send: send, frames: frames, tr: observer.NewTranscript(), status: "watching " + Prefix8(agent) + "…", width: 100}
}

// Run shows m full screen until q, or ctx ends.
func Run(ctx context.Context, m Model) error {
	if _, err := tea.NewProgram(m, tea.WithContext(ctx), tea.WithAltScreen()).Run(); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// Transcript is what the model has folded so far.
func (m Model) Transcript() *observer.Transcript { return m.tr }

func (m Model) next() tea.Cmd {
	return func() tea.Msg {
		f, ok := <-m.frames
		if !ok {
			return framesDone{}
		}
		return frameMsg{f}
	}
}

// Init starts reading frames.
// Init starts reading frames.
func (m Model) Init() tea.Cmd { return m.next() }

// Update folds a frame, or handles a key: 1-9 answer the oldest pending
// permission request, c cancels the running turn, q quits.
// Update folds a frame, or handles a key: 1-9 answer the oldest pending
// permission request, c cancels the running turn, q quits.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case frameMsg:
		m.tr.Apply(msg.f)
		return m, m.next()
	case framesDone:
		m.status = "the subscription ended"
		return m, tea.Quit
	case statusMsg:
		m.status = string(msg)
	case tea.WindowSizeMsg:
		m.width = msg.Width
	case tea.KeyMsg:
		switch k := msg.String(); {
		case k == "q" || k == "ctrl+c":
			return m, tea.Quit
		case k == "c":
			return m, m.cancelTurn()
		case len(k) == 1 && k[0] >= '1' && k[0] <= '9':
			return m, m.answer(int(k[0] - '1'))
		}
	}
	return m, nil
}

// answer sends the option n of the oldest pending permission request.
func (m Model) answer(n int) tea.Cmd {
	pending := m.tr.Pending()
	if len(pending) == 0 || n >= len(pending[0].Options) {
		return nil
	}
	pv, opt := pending[0], pending[0].Options[n]
	return m.control(observer.Control{V: 1, Type: observer.CtlPermission, Session: pv.Session, Request: pv.Request, Option: opt.ID},
		"sent "+opt.Name+" for "+pv.Title)
}

// cancelTurn cancels the newest turn that has not stopped.
func (m Model) cancelTurn() tea.Cmd {
	for i := len(m.tr.Turns) - 1; i >= 0; i-- {
		if t := m.tr.Turns[i]; t.Stop == "" && t.Session != "" {
			return m.control(observer.Control{V: 1, Type: observer.CtlCancel, Session: t.Session}, "cancel sent for "+Prefix8(t.Turn))
		}
	}
	return nil
}

func (m Model) control(c observer.Control, ok string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(m.ctx, 10*time.Second)
		defer cancel()
		if err := m.send(ctx, c); err != nil {
			return statusMsg("failed: " + err.Error())
		}
		return statusMsg(ok)
	}
}

// View renders the last turns and the pending permission request.
// View renders the last turns and the pending permission request.
func (m Model) View() string {
	var b strings.Builder
	if n := len(m.tr.History); n > 0 { // a resumed session's replayed history, never a turn
		h := m.tr.History[n-1]
		fmt.Fprintf(&b, "── #%s session %s history (replayed by session/load): %s\n", h.Channel, Prefix8(h.Session), tail(oneLine(h.Text), m.width-40))
	}
	turns := m.tr.Turns
	if len(turns) > 3 {
		turns = turns[len(turns)-3:]
	}
	for _, t := range turns {
		state := "running"
		if t.Stop != "" {
			state = t.Stop
		}
		fmt.Fprintf(&b, "── #%s turn %s [%s]\n", t.Channel, Prefix8(t.Turn), state)
		if t.Prompt != "" {
			fmt.Fprintf(&b, "  prompt: %s\n", tail(oneLine(t.Prompt), m.width-12))
		}
		if t.Thoughts != "" {
			fmt.Fprintf(&b, "  thinking: %s\n", tail(oneLine(t.Thoughts), m.width-14))
		}
		for _, p := range t.Plan {
			fmt.Fprintf(&b, "  plan [%s] %s\n", p.Status, p.Content)
		}
		for _, tv := range t.Tools {
			fmt.Fprintf(&b, "  tool %s [%s]\n", tv.Title, tv.Status)
		}
		for _, pv := range t.Permissions {
			if pv.Answer != "" {
				fmt.Fprintf(&b, "  permission %s: %s\n", pv.Title, pv.Answer)
			}
		}
		if t.Text != "" {
			fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(tail(t.Text, 2000), "\n", "\n  "))
		}
	}
	if p := m.tr.Pending(); len(p) > 0 {
		fmt.Fprintf(&b, "\nPERMISSION REQUESTED: %s\n", p[0].Title)
		for i, o := range p[0].Options {
			fmt.Fprintf(&b, "  [%d] %s (%s)\n", i+1, o.Name, o.Kind)
		}
	}
	fmt.Fprintf(&b, "\n%s   (1-9 answer · c cancel · q quit · %d frames missing)\n", m.status, m.tr.Gaps)
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func tail(s string, n int) string {
	if n < 10 {
		n = 10
	}
	if r := []rune(s); len(r) > n {
		return "…" + string(r[len(r)-n:])
	}
	return s
}
