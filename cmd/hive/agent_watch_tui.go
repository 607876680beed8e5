package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/agentbridge"
	tea "github.com/charmbracelet/bubbletea"
)

// watchModel is the bubbletea model of `hive agent watch` on a terminal; the
// transcript itself is agentbridge.Transcript's pure reducer.
type watchModel struct {
	ctx    context.Context
	w      *watcher
	frames <-chan agentbridge.Frame
	tr     *agentbridge.Transcript
	status string
	width  int
	err    error
}

type frameMsg struct{ f agentbridge.Frame }
type framesDone struct{}
type statusMsg string

func watchTUI(ctx context.Context, w *watcher, frames <-chan agentbridge.Frame, errc <-chan error) error {
	m := watchModel{ctx: ctx, w: w, frames: frames, tr: agentbridge.NewTranscript(), status: "watching " + prefix8(w.agent) + "…", width: 100}
	if _, err := tea.NewProgram(m, tea.WithContext(ctx), tea.WithAltScreen()).Run(); err != nil && ctx.Err() == nil {
		return err
	}
	return firstErr(errc)
}

func (m watchModel) next() tea.Cmd {
	return func() tea.Msg {
		f, ok := <-m.frames
		if !ok {
			return framesDone{}
		}
		return frameMsg{f}
	}
}

func (m watchModel) Init() tea.Cmd { return m.next() }

func (m watchModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
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
func (m watchModel) answer(n int) tea.Cmd {
	pending := m.tr.Pending()
	if len(pending) == 0 || n >= len(pending[0].Options) {
		return nil
	}
	pv, opt := pending[0], pending[0].Options[n]
	return m.send(agentbridge.Control{V: 1, Type: agentbridge.CtlPermission, Session: pv.Session, Request: pv.Request, Option: opt.ID},
		"sent "+opt.Name+" for "+pv.Title)
}

// cancelTurn cancels the newest turn that has not stopped.
func (m watchModel) cancelTurn() tea.Cmd {
	for i := len(m.tr.Turns) - 1; i >= 0; i-- {
		if t := m.tr.Turns[i]; t.Stop == "" && t.Session != "" {
			return m.send(agentbridge.Control{V: 1, Type: agentbridge.CtlCancel, Session: t.Session}, "cancel sent for "+prefix8(t.Turn))
		}
	}
	return nil
}

func (m watchModel) send(c agentbridge.Control, ok string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(m.ctx, 10*time.Second)
		defer cancel()
		if err := m.w.control(ctx, c); err != nil {
			return statusMsg("failed: " + err.Error())
		}
		return statusMsg(ok)
	}
}

func (m watchModel) View() string {
	var b strings.Builder
	if n := len(m.tr.History); n > 0 { // a resumed session's replayed history, never a turn
		h := m.tr.History[n-1]
		fmt.Fprintf(&b, "── #%s session %s history (replayed by session/load): %s\n", h.Channel, prefix8(h.Session), tail(oneLine(h.Text), m.width-40))
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
		fmt.Fprintf(&b, "── #%s turn %s [%s]\n", t.Channel, prefix8(t.Turn), state)
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
