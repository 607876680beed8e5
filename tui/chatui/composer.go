package chatui

import (
	"errors"
	"slices"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/session"
	tea "github.com/charmbracelet/bubbletea"
)

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
	if m.s.Current() == "" {
		m.say(true, "no channel open: /join NAME or /dm NAME")
		return nil
	}
	if m.editing != "" {
		target, _ := m.s.Event(m.editing)
		m.editing = ""
		m.composer.Reset()
		return m.run(m.s.Edit(client.Edit(target, text), text))
	}
	pks, err := client.MentionsIn(m.chat().Names(), text)
	if err != nil {
		m.say(true, errText(err))
		return nil
	}
	ev := client.Message(m.s.Current(), text, pks...)
	if parent, ok := m.s.Event(m.replyTarget()); ok && m.s.Thread() != "" {
		ev = client.Reply(parent, text, pks...)
	}
	job, err := m.s.Send(ev, text)
	if err != nil {
		m.say(true, errText(err))
		return nil
	}
	m.composer.Reset()
	m.s.ClearDivider() // sending clears the new-messages divider
	m.timeline.GotoBottom()
	return m.run(job)
}

// sent takes a publish's end: the row joins the timeline, or the hub's
// reason shows on one line and the text comes back to the composer (the
// message leaves the outbox: sending it again is sending the text again).
func (m *Model) sent(msg session.Sent) tea.Cmd {
	m.s.TakeSent(msg)
	if msg.Err == nil {
		m.info.text = ""
		return nil
	}
	m.s.Outbox().Discard(msg.Event.ID)
	what := "not sent"
	if msg.Edit {
		what = "not edited"
	}
	m.say(true, what+": "+errText(msg.Err))
	if m.composer.Value() == "" {
		m.composer.SetValue(msg.Text)
	}
	if errors.Is(msg.Err, client.ErrAuth) {
		return m.reloadChannels("", "") // removed from the channel, or it was archived: the list says so
	}
	return nil
}

// editLast puts the member's newest message of the open view in the
// composer to edit.
func (m *Model) editLast() {
	id := m.target(true)
	r, ok := m.chat().Row(id)
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
		members := m.s.Channel().Members
		var inChannel, others []string
		names := m.chat().Names()
		for _, pk := range m.s.Profiles() {
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
