package chatui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// command is one slash command.
type command struct {
	name, args, help string
	run              func(m *Model, arg string) tea.Cmd
}

// commands are the slash commands, in the order /help lists them. Each
// makes the client call its CLI command makes.
func commands() []command {
	return []command{
		{"join", "CHANNEL", "join a channel and open it (hive channel join)", (*Model).cmdJoin},
		{"create", "NAME [--private]", "create a channel and open it (hive channel create)", (*Model).cmdCreate},
		{"leave", "", "leave the open channel (hive channel leave)", (*Model).cmdLeave},
		{"dm", "NAME", "open (creating it) the DM with NAME (hive dm)", (*Model).cmdDM},
		{"add", "NAME", "add NAME to the open channel (hive channel add)", (*Model).cmdAdd},
		{"topic", "TEXT", "set the open channel's topic (hive channel edit --about)", (*Model).cmdTopic},
		{"name", "NAME", "publish your name (hive profile name)", (*Model).cmdName},
		{"react", "EMOJI", "react to the selected (else last) message (hive react)", (*Model).cmdReact},
		{"edit", "[TEXT]", "edit your selected (else last) message; no TEXT: in the composer (hive edit)", (*Model).cmdEdit},
		{"delete", "", "delete your selected (else last) message (hive delete)", (*Model).cmdDelete},
		{"thread", "", "open the thread of the selected (else last) message", (*Model).cmdThread},
		{"who", "", "the open channel's members, with roles and presence (hive who)", (*Model).cmdWho},
		{"search", "TEXT", "search the messages you can read (hive search)", (*Model).cmdSearch},
		{"steer", "TEXT", "steer your agent's turn in this thread (hive agent steer)", (*Model).cmdSteer},
		{"cancel", "", "cancel your agent's turn in this thread (hive agent cancel)", (*Model).cmdCancel},
		{"run", "NAME [INPUT=VALUE]...", "start a manual run of a workflow (hive workflow run)", (*Model).cmdRun},
		{"help", "", "keys and commands", func(m *Model, _ string) tea.Cmd { m.help = &helpView{}; return nil }},
		{"quit", "", "leave hive chat", func(*Model, string) tea.Cmd { return func() tea.Msg { return quitMsg{} } }},
	}
}

// command runs a "/name args" line.
func (m *Model) command(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	arg = strings.TrimSpace(arg)
	all := commands()
	i := slices.IndexFunc(all, func(c command) bool { return c.name == name })
	if i < 0 {
		m.say(true, fmt.Sprintf("no command /%s: /help lists them", name))
		return nil
	}
	c := all[i]
	if c.args != "" && !strings.HasPrefix(c.args, "[") && arg == "" {
		m.say(true, fmt.Sprintf("usage: /%s %s", c.name, c.args))
		return nil
	}
	if m.s.Current() == "" && !slices.Contains([]string{"join", "create", "dm", "search", "run", "help", "quit"}, c.name) {
		m.say(true, "no channel open: /join NAME or /dm NAME")
		return nil
	}
	return c.run(m, arg)
}

// call runs fn against the hub in the background and reports its end.
func (m *Model) call(fn func(ctx context.Context, c *client.Client) doneMsg) tea.Cmd {
	c, ctx := m.c(), m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return fn(ctx, c)
	}
}

// publishing publishes ev and says notice when the hub took it.
func (m *Model) publishing(ev nostr.Event, notice string, then doneMsg) tea.Cmd {
	return m.call(func(ctx context.Context, c *client.Client) doneMsg {
		if _, err := c.Publish(ctx, ev); err != nil {
			return doneMsg{err: err}
		}
		then.notice = notice
		return then
	})
}

// targetEvent is the event of the message a command acts on.
func (m *Model) targetEvent(own bool) (nostr.Event, bool) {
	ev, ok := m.s.Event(m.target(own))
	if !ok {
		what := "no message here"
		if own {
			what = "no message of yours here"
		}
		m.say(true, what+" (select one with "+m.keys["select_up"].Help().Key+")")
	}
	return ev, ok
}

func (m *Model) cmdReact(arg string) tea.Cmd {
	ev, ok := m.targetEvent(false)
	if !ok {
		return nil
	}
	return m.publishing(client.Reaction(ev, arg), "reacted "+arg, doneMsg{})
}

func (m *Model) cmdEdit(arg string) tea.Cmd {
	if arg == "" {
		m.editLast()
		return nil
	}
	ev, ok := m.targetEvent(true)
	if !ok {
		return nil
	}
	return m.run(m.s.Edit(client.Edit(ev, arg), arg))
}

func (m *Model) cmdDelete(string) tea.Cmd {
	ev, ok := m.targetEvent(true)
	if !ok {
		return nil
	}
	m.selected = ""
	return m.publishing(client.Delete(ev, ""), "deleted", doneMsg{})
}

func (m *Model) cmdThread(string) tea.Cmd {
	m.openThread(m.target(false))
	return nil
}

func (m *Model) cmdWho(string) tea.Cmd {
	ch := m.s.Channel()
	names := m.chat().Names()
	var out []string
	for pk, role := range ch.Members {
		s := clean(names.Label(pk), false)
		if role != "" && role != "member" {
			s += " (" + role + ")"
		}
		if p := m.chat().Live().Presence(pk, m.opt.Now()); p != "" && p != "offline" {
			s += " · " + p
		}
		out = append(out, s)
	}
	slices.Sort(out)
	m.say(false, fmt.Sprintf("#%s: %d members: %s", ch.Name, len(out), strings.Join(out, ", ")))
	return nil
}

// cmdName publishes the member's name (hive profile name).
func (m *Model) cmdName(arg string) tea.Cmd {
	if strings.ContainsAny(arg, "@") || len(arg) > 64 {
		m.say(true, fmt.Sprintf("name %q: give 1 to 64 characters, without @", arg))
		return nil
	}
	return m.publishing(client.MemberProfile(arg, ""), "you are "+arg, doneMsg{})
}
