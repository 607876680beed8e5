package chatui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ainb/hive/client"
	tea "github.com/charmbracelet/bubbletea"
)

// The channel commands: /create, /join, /leave, /dm, /add, /topic.

// cmdCreate creates a channel and opens it (hive channel create): NAME
// [--private], its id derived from the name.
func (m *Model) cmdCreate(arg string) tea.Cmd {
	vis := client.Open
	var words []string
	for _, w := range strings.Fields(arg) {
		if w == "--private" {
			vis = client.Private
			continue
		}
		words = append(words, w)
	}
	name := strings.Join(words, " ")
	if name == "" {
		m.say(true, "usage: /create NAME [--private]")
		return nil
	}
	id := client.ChannelIDFor(name)
	if err := client.CheckChannelID(id); err != nil {
		m.say(true, err.Error()+": name it with some of those (hive channel create --id sets it)")
		return nil
	}
	return m.call(func(ctx context.Context, c *client.Client) doneMsg {
		if _, err := c.Publish(ctx, client.ChannelCreate(id, name, vis)); err != nil {
			if errors.Is(err, client.ErrDuplicate) {
				return doneMsg{err: fmt.Errorf("%s: pick another name", errText(err))}
			}
			return doneMsg{err: err}
		}
		return doneMsg{notice: fmt.Sprintf("created #%s (%s)", name, vis), open: id}
	})
}

func (m *Model) cmdJoin(arg string) tea.Cmd {
	return m.call(func(ctx context.Context, c *client.Client) doneMsg {
		ch, err := c.ResolveChannel(ctx, strings.TrimPrefix(arg, "#"))
		if err != nil {
			return doneMsg{err: err}
		}
		if _, err := c.Publish(ctx, client.ChannelJoin(ch.ID)); err != nil && !errors.Is(err, client.ErrDuplicate) {
			return doneMsg{err: err}
		}
		return doneMsg{notice: "joined #" + ch.Name, open: ch.ID}
	})
}

func (m *Model) cmdLeave(string) tea.Cmd {
	m.s.Leaving()
	return m.publishing(client.ChannelLeave(m.s.Current()), "left #"+m.s.Channel().Name, doneMsg{reload: true})
}

func (m *Model) cmdDM(arg string) tea.Cmd {
	return m.call(func(ctx context.Context, c *client.Client) doneMsg {
		pk, err := c.ResolveKey(ctx, arg)
		if err != nil {
			return doneMsg{err: err}
		}
		if pk == c.PublicKey() || pk == c.Member() {
			return doneMsg{err: errors.New("that is your own key: a DM needs another participant")}
		}
		id := client.DMChannelID(c.PublicKey(), pk)
		if _, err := c.Publish(ctx, client.DMCreate(id, pk)); err != nil && !errors.Is(err, client.ErrDuplicate) {
			return doneMsg{err: err}
		}
		return doneMsg{open: id}
	})
}

func (m *Model) cmdAdd(arg string) tea.Cmd {
	ch := m.s.Current()
	return m.call(func(ctx context.Context, c *client.Client) doneMsg {
		pk, err := c.ResolveKey(ctx, arg)
		if err != nil {
			return doneMsg{err: err}
		}
		if _, err := c.Publish(ctx, client.ChannelAdd(ch, pk, "")); err != nil {
			return doneMsg{err: err}
		}
		return doneMsg{notice: "added " + arg, reload: true}
	})
}

func (m *Model) cmdTopic(arg string) tea.Cmd {
	return m.publishing(client.ChannelEdit(m.s.Current(), "", arg, ""), "topic set", doneMsg{reload: true})
}
