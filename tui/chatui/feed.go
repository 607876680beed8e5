package chatui

import (
	"github.com/ainb/hive/client/session"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// apply takes events into the session and what they ask of the chat:
// presence once the live feed is up or another member came online, the
// names of keys new to it. It reports whether the channel list changed (a
// channel's metadata or roster).
func (m *Model) apply(evs []nostr.Event) (channelsChanged bool) {
	m.draw.version++
	return m.applied(m.s.Apply(evs))
}

// applied queues what applying events asks for.
func (m *Model) applied(a session.Applied) (channelsChanged bool) {
	if a.FeedUp {
		m.later = append(m.later, m.announce())
	}
	if len(a.CameOnline) > 0 {
		if hello := m.hello(); hello != nil {
			m.later = append(m.later, hello)
		}
	}
	if len(a.Unknown) > 0 {
		m.later = append(m.later, m.run(m.s.Names(a.Unknown)))
	}
	if len(a.Quoted) > 0 {
		m.later = append(m.later, m.run(m.s.Quotes(a.Quoted)))
	}
	return a.ChannelsChanged
}

// take handles an event of the session: a load, a reload, a page, live
// events, a send's or a read mark's end.
func (m *Model) take(ev session.Event) tea.Cmd {
	m.draw.version++
	switch ev := ev.(type) {
	case session.Loaded:
		a, first, err := m.s.TakeLoaded(m.ctx, ev)
		if err != nil {
			m.say(true, "could not load: "+errText(err))
			return nil
		}
		m.applied(a)
		if first {
			m.say(false, "")
			m.openFirst()
		}
		return tea.Batch(m.run(m.s.Next()), m.watchAgents())
	case session.Reloaded:
		return m.setChannels(ev)
	case session.Older:
		a, added, err := m.s.TakeOlder(ev)
		if err != nil {
			m.say(true, "older messages: "+errText(err))
			return nil
		}
		m.applied(a)
		if ev.Page.Channel == m.s.Current() && added > 0 {
			m.keepOffset = true
		}
	case session.Batch:
		var cmds []tea.Cmd
		if m.applied(m.s.Apply(ev.Events)) {
			cmds = append(cmds, m.run(m.s.Reload("", "")))
		}
		if ev.Live {
			cmds = append(cmds, m.run(m.s.Next()))
		}
		return tea.Batch(append(cmds, m.watchAgents())...) // an agent's profile may come later
	case session.Quoted:
		m.applied(m.s.TakeQuoted(ev))
	case session.FeedEnded:
		if m.connCheck(); m.conn.Failed == nil {
			m.say(true, "live updates stopped: "+errText(ev.Err))
		}
	case session.Sent:
		return m.sent(ev)
	case session.Marked:
		if ev.Err != nil {
			m.say(true, errText(ev.Err))
		}
	}
	return nil
}
