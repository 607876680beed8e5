package chatui

import (
	"context"
	"errors"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/ainb/hive/kinds"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// presenceEvery renews the member's presence (it reads as offline after 10 minutes).
const presenceEvery = 4 * time.Minute

// Run runs the chat on the terminal until the member quits, ctx ends or
// SIGTERM/SIGHUP comes. The terminal is restored on every way out,
// a panic included (bubbletea's own recovery, then the panic goes on).
func Run(ctx context.Context, m *Model, in io.Reader, out io.Writer) error {
	// bubbletea quits by itself on SIGTERM (and restores the terminal); a
	// context ended by the same signal as well makes its shutdown wait for
	// a signal handler that cannot deliver its quit (a hang), so only SIGHUP
	// ends the context.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.ctx = ctx
	presented := make(chan struct{})
	go func() { defer close(presented); m.present(ctx) }()
	defer func() { cancel(); <-presented }() // "offline" is sent before the chat ends
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithReportFocus()}
	if in != nil {
		opts = append(opts, tea.WithInput(in))
	}
	if out != nil {
		opts = append(opts, tea.WithOutput(out))
	}
	_, err := tea.NewProgram(m, opts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // SIGTERM or the caller's end: the terminal is restored
	}
	return err
}

// present renews the member's presence every presenceEvery (the first is
// sent once the live feed is up: announce), offline at the end.
func (m *Model) present(ctx context.Context) {
	send := func(ctx context.Context, status string) {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		m.c().Publish(ctx, nostr.Event{Kind: kinds.Presence, Content: status, Tags: nostr.Tags{}})
	}
	t := time.NewTicker(presenceEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			send(context.Background(), "offline")
			return
		case <-t.C:
			send(ctx, "online")
		}
	}
}

// helloEvery bounds how often the chat answers others coming online with
// its own presence.
const helloEvery = 30 * time.Second

// greeting is when the chat last answered others coming online, and
// whether an answer waits for helloEvery to pass.
type greeting struct {
	last time.Time
	due  bool
}

// hello answers members who just came online (presence is ephemeral: a
// chat that starts learns who is online from these answers, not from the
// hub's store): at once, or, within helloEvery of the last answer, once
// that has passed (greetDue), so that a newcomer is never left unanswered.
func (m *Model) hello() tea.Cmd {
	m.greeting.due = true
	return m.greetDue()
}

// greetDue sends the answer that waits, if helloEvery has passed.
func (m *Model) greetDue() tea.Cmd {
	now := m.opt.Now()
	if !m.greeting.due || now.Sub(m.greeting.last) < helloEvery {
		return nil
	}
	m.greeting = greeting{last: now}
	return m.announce()
}

// announce publishes the member's presence: online.
func (m *Model) announce() tea.Cmd {
	c, ctx := m.c(), m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		c.Publish(ctx, nostr.Event{Kind: kinds.Presence, Content: "online", Tags: nostr.Tags{}})
		return nil
	}
}
