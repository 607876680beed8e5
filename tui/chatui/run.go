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
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.ctx = ctx
	go m.present(ctx)
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

// present publishes the member's presence now and every presenceEvery,
// offline at the end.
func (m *Model) present(ctx context.Context) {
	send := func(ctx context.Context, status string) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		m.c.Publish(ctx, nostr.Event{Kind: kinds.Presence, Content: status, Tags: nostr.Tags{}})
	}
	send(ctx, "online")
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
