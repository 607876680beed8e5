package chatui

import (
	"context"
	"slices"
	"strings"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/tui/agentwatch"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/nbd-wtf/go-nostr"
)

// agentPane is the live transcript of one of the member's own agents (the
// watch model of `hive agent watch`), fed by its observer frames.
type agentPane struct {
	agent  string
	ck     [32]byte
	frames chan observer.Frame
	watch  agentwatch.Model
	open   bool
}

// watchAgents starts the pane of the member's first own agent: a
// subscription to its frames to this key and the watch kept
// (client.KeepWatch), which makes its bridge send again what waits for an
// answer and gives a paired device its lease.
// Only the owner and the owner's paired devices can open frames.
func (m *Model) watchAgents() tea.Cmd {
	if m.pane != nil || m.opt.ObserverKey == nil {
		return nil
	}
	names := m.chat().Names()
	i := slices.IndexFunc(m.s.Profiles(), func(pk string) bool { return names.IsAgent(pk) && names.Owner(pk) == m.c().Member() })
	if i < 0 {
		return nil
	}
	agent := m.s.Profiles()[i]
	ck, err := m.opt.ObserverKey(agent)
	if err != nil {
		return nil
	}
	p := &agentPane{agent: agent, ck: ck, frames: make(chan observer.Frame, 256)}
	c, ctx := m.c(), m.ctx
	send := func(ctx context.Context, ctl observer.Control) error {
		ev, err := observer.SealFrame(ctl, ck, agent)
		if err != nil {
			return err
		}
		_, err = c.Publish(ctx, *ev)
		return err
	}
	p.watch = agentwatch.New(ctx, agent, p.frames, send)
	m.pane = p
	go func() {
		sub, err := c.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.ObserverFrame}, Authors: []string{agent}, Tags: nostr.TagMap{"p": {c.PublicKey()}}})
		if err != nil {
			return
		}
		defer sub.Close()
		c.KeepWatch(ctx, agent, ck) // a refusal only leaves the frames out
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-sub.Events():
				if !ok {
					return
				}
				var f observer.Frame
				if observer.OpenFrame(&ev, ck, &f) != nil {
					continue
				}
				select {
				case p.frames <- f:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return p.watch.Init()
}

// paneUpdate gives the watch model a message; it never ends the chat.
func (m *Model) paneUpdate(msg tea.Msg) tea.Cmd {
	if m.pane == nil {
		return nil
	}
	if k, ok := msg.(tea.KeyMsg); ok && (k.String() == "q" || k.String() == "ctrl+c") {
		return nil
	}
	next, cmd := m.pane.watch.Update(msg)
	m.pane.watch = next.(agentwatch.Model)
	return cmd
}

// pendingAsk is the title of the oldest permission request waiting for the
// member's answer, "" when none.
func (m *Model) pendingAsk() string {
	if m.pane == nil {
		return ""
	}
	if p := m.pane.watch.Transcript().Pending(); len(p) > 0 {
		return p[0].Title
	}
	return ""
}

// paneView is the agent pane, width wide and height high.
func (m *Model) paneView(width, height int) string {
	head := bold.Render(truncate("agent "+clean(m.chat().Names().Name(m.pane.agent), false)+" · 1-9 answer · c cancel · Esc back", width))
	body := strings.Split(clean(m.pane.watch.View(), true), "\n")
	body = bottomLines(body, height-1)
	for i := range body {
		body[i] = truncate(body[i], width)
	}
	return lipgloss.NewStyle().Width(width).Height(height).MaxHeight(height).Render(head + "\n" + strings.Join(body, "\n"))
}
