package chatui

import (
	"context"
	"time"

	"github.com/ainb/hive/client/observer"
	tea "github.com/charmbracelet/bubbletea"
)

// threadTurn is the turn of the member's agent for the open thread (a
// turn is named by the mention it answers: the thread's root or a reply
// in it), else its newest turn in the open channel; running: only a turn
// still going. nil when there is none.
func (m *Model) threadTurn(running bool) *observer.TurnView {
	if m.pane == nil {
		return nil
	}
	turns := m.pane.watch.Transcript().Turns
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		if t.Channel != m.s.Current() || t.Session == "" || (running && t.Stop != "") {
			continue
		}
		if m.s.Thread() == "" {
			return t
		}
		if r, ok := m.chat().Row(t.Turn); t.Turn == m.s.Thread() || (ok && r.Root == m.s.Thread()) {
			return t
		}
	}
	return nil
}

// control sends a control frame to the member's agent and says notice.
func (m *Model) control(c observer.Control, notice string) tea.Cmd {
	p, cl, ctx := m.pane, m.c(), m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		ev, err := observer.SealFrame(c, p.ck, p.agent)
		if err == nil {
			_, err = cl.Publish(ctx, *ev)
		}
		if err != nil {
			return doneMsg{err: err}
		}
		return doneMsg{notice: notice}
	}
}

// cmdSteer sends text into the session of the agent of the open thread
// (hive agent steer).
func (m *Model) cmdSteer(arg string) tea.Cmd {
	t := m.threadTurn(false)
	if t == nil {
		m.say(true, m.noTurn("to steer"))
		return nil
	}
	return m.control(observer.Control{V: 1, Type: observer.CtlSteer, Session: t.Session, Text: arg}, "steer sent to "+m.agentName())
}

// cmdCancel cancels the running turn of the agent of the open thread
// (hive agent cancel).
func (m *Model) cmdCancel(string) tea.Cmd {
	t := m.threadTurn(true)
	if t == nil {
		m.say(true, m.noTurn("to cancel"))
		return nil
	}
	return m.control(observer.Control{V: 1, Type: observer.CtlCancel, Session: t.Session}, "cancel sent to "+m.agentName())
}

func (m *Model) noTurn(what string) string {
	switch {
	case m.pane == nil:
		return "no agent of yours " + what + " (only an agent's owner steers and cancels it)"
	case m.s.Thread() != "":
		return m.agentName() + " has no turn in this thread " + what
	}
	return m.agentName() + " has no turn in this channel " + what
}

func (m *Model) agentName() string { return clean(m.chat().Names().Name(m.pane.agent), false) }
