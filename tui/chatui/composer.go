package chatui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// sendTimeout bounds how long a message waits for its OK (through
// reconnects) before it shows as not sent.
const sendTimeout = 2 * time.Minute

// sentMsg is a publish's end.
type sentMsg struct {
	ev   nostr.Event
	text string
	err  error
	edit bool
}

// composerKey handles a key in the composer.
func (m *Model) composerKey(k tea.KeyMsg) tea.Cmd {
	km := m.keys
	switch {
	case typed(k):
		m.comp = completion{}
		m.composer.InsertString(string(k.Runes)) // text, even when it spells a key's name
		return nil
	case km.is(k, "send"):
		m.comp = completion{}
		return m.submit()
	case km.is(k, "complete"):
		m.complete()
		return nil
	case km.is(k, "edit_last") && m.composer.Value() == "":
		m.editLast()
		return nil
	case km.is(k, "editor"):
		return m.openEditor()
	}
	m.comp = completion{}
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(k)
	return cmd
}

// submit sends the composer's text: a /command, an edit, a reply in the
// open thread, or a message to the channel.
func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.composer.Value())
	if text == "" {
		return nil
	}
	if strings.HasPrefix(text, "/") && !strings.HasPrefix(text, "//") {
		m.composer.Reset()
		return m.command(text)
	}
	text = strings.TrimPrefix(text, "/") // "//" sends a leading slash
	if m.cur == "" {
		m.say(true, "no channel open: /join NAME or /dm NAME")
		return nil
	}
	if m.editing != "" {
		target := m.events[m.editing]
		m.editing = ""
		m.composer.Reset()
		return m.publish(client.Edit(target, text), text, true)
	}
	pks, err := client.MentionsIn(m.chat.Names(), text)
	if err != nil {
		m.say(true, errText(err))
		return nil
	}
	ev := client.Message(m.cur, text, pks...)
	if parent, ok := m.events[m.replyTarget()]; ok && m.thread != "" {
		ev = client.Reply(parent, text, pks...)
	}
	signed, err := m.c.Sign(ev)
	if err != nil {
		m.say(true, errText(err))
		return nil
	}
	m.pending = append(m.pending, pending{ev: signed, text: text})
	m.composer.Reset()
	m.divider = "" // sending clears the new-messages divider
	m.timeline.GotoBottom()
	return m.publish(signed, text, false)
}

// publish sends ev and waits for the hub's OK (queued while reconnecting).
func (m *Model) publish(ev nostr.Event, text string, edit bool) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, sendTimeout)
		defer cancel()
		stored, err := c.Publish(ctx, ev)
		return sentMsg{ev: stored, text: text, err: err, edit: edit}
	}
}

// sent takes a publish's end: the row joins the timeline, or the hub's
// reason shows on one line and the text comes back to the composer.
func (m *Model) sent(msg sentMsg) tea.Cmd {
	m.dropPending(msg.ev.ID)
	if msg.err != nil {
		what := "not sent"
		if msg.edit {
			what = "not edited"
		}
		m.say(true, what+": "+errText(msg.err))
		if m.composer.Value() == "" {
			m.composer.SetValue(msg.text)
		}
		if errors.Is(msg.err, client.ErrAuth) {
			return m.reloadChannels("", "") // removed from the channel, or it was archived: the list says so
		}
		return nil
	}
	m.info = ""
	m.apply([]nostr.Event{msg.ev})
	return nil
}

func (m *Model) dropPending(id string) {
	m.pending = slices.DeleteFunc(m.pending, func(p pending) bool { return p.ev.ID == id })
}

// editLast puts the member's newest message of the open view in the
// composer to edit.
func (m *Model) editLast() {
	id := m.target(true)
	r, ok := m.chat.Row(id)
	if !ok {
		m.say(false, "no message of yours here to edit")
		return
	}
	m.editing = id
	m.composer.SetValue(r.Text)
	m.say(false, "editing your message: Enter saves, Esc cancels")
}

// completion is the state of Tab completion of the composer's last word.
type completion struct {
	word    string   // the word as typed
	matches []string // what it completes to
	i       int
}

func (c completion) active() bool { return len(c.matches) > 0 }

// complete completes the last word of the composer: @name from the known
// profiles (members of the channel first; devices act as their owners and
// are never offered), /command from the commands. Tab again takes the next
// match.
func (m *Model) complete() {
	v := m.composer.Value()
	start := strings.LastIndexAny(v, " \n") + 1
	word := v[start:]
	if m.comp.active() {
		m.comp.i = (m.comp.i + 1) % len(m.comp.matches)
	} else {
		m.comp = completion{word: word, matches: m.candidates(word, start == 0)}
		if !m.comp.active() {
			return
		}
	}
	pick := m.comp.matches[m.comp.i]
	m.composer.SetValue(v[:start] + pick + " ")
	if len(m.comp.matches) > 1 {
		m.say(false, "completions: "+strings.Join(m.comp.matches, " "))
	}
}

// candidates are the completions of word.
func (m *Model) candidates(word string, first bool) []string {
	var out []string
	switch {
	case strings.HasPrefix(word, "@"):
		pre := strings.ToLower(word[1:])
		members := m.channel().Members
		var inChannel, others []string
		names := m.chat.Names()
		for _, pk := range m.profiles {
			if names.IsDevice(pk) {
				continue
			}
			n := clean(names.Name(pk), false)
			if names.IsAgent(pk) { // "helper (alice's agent)": its own name is the handle
				n, _, _ = strings.Cut(n, " (")
			}
			if strings.Contains(n, " ") || !strings.HasPrefix(strings.ToLower(n), pre) || len(names.Lookup(n)) != 1 {
				continue // a name with a space or shared by two keys cannot be typed as @name
			}
			if members[pk] != "" {
				inChannel = append(inChannel, "@"+n)
			} else {
				others = append(others, "@"+n)
			}
		}
		slices.Sort(inChannel)
		slices.Sort(others)
		out = slices.Compact(append(inChannel, others...))
	case strings.HasPrefix(word, "/") && first:
		for _, c := range commands() {
			if strings.HasPrefix(c.name, word[1:]) {
				out = append(out, "/"+c.name)
			}
		}
	}
	return out
}
