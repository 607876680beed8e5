package agentmcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// ReadTools are the tools that only read, which the bridge lets run
// without asking the owner.
func ReadTools() []string {
	return []string{"read_thread", "read_channel", "list_channels", "list_members", "get_event", "search"}
}

type threadIn struct {
	EventID string `json:"event_id,omitempty" jsonschema:"a message of the thread (default: the thread you were asked in)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"messages per page (default 20, at most 100)"`
	Before  string `json:"before,omitempty" jsonschema:"the page before this message id"`
}

type channelIn struct {
	Channel string `json:"channel,omitempty" jsonschema:"channel id or name (default: the channel you were asked in)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"messages per page (default 20, at most 100)"`
	Before  string `json:"before,omitempty" jsonschema:"the page before this message id"`
}

type membersIn struct {
	Channel string `json:"channel,omitempty" jsonschema:"channel id or name (default: the channel you were asked in)"`
}

type eventIn struct {
	ID string `json:"id" jsonschema:"the event id (64 hex characters)"`
}

type searchIn struct {
	Query   string `json:"query" jsonschema:"words to find; from:NAME and in:CHANNEL narrow it"`
	Channel string `json:"channel,omitempty" jsonschema:"only this channel (id or name)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"results (default 20, at most 100)"`
}

func (s *Server) addReadTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "read_thread", Description: "Read a thread of the hub: the thread you were asked in, or the one holding event_id. Oldest first, paged."}, s.readThread)
	mcp.AddTool(srv, &mcp.Tool{Name: "read_channel", Description: "Read a page of a channel's messages (threads' replies included), oldest first; before pages back."}, s.readChannel)
	mcp.AddTool(srv, &mcp.Tool{Name: "list_channels", Description: "List the channels you can see, with their ids, types and whether you are a member."}, s.listChannels)
	mcp.AddTool(srv, &mcp.Tool{Name: "list_members", Description: "List a channel's members with their names and roles."}, s.listMembers)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_event", Description: "Show one message by its event id (edits applied)."}, s.getEvent)
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Description: "Search the messages you can read (best matches first)."}, s.search)
}

func (s *Server) readThread(ctx context.Context, _ *mcp.CallToolRequest, in threadIn) (*mcp.CallToolResult, any, error) {
	c, t := s.cfg.Client, s.turn()
	root, channel := t.Thread, t.Channel
	if in.EventID != "" {
		ev, err := c.Event(ctx, in.EventID)
		if err != nil {
			return nil, nil, hubErr("read_thread", err)
		}
		root, channel = kinds.ThreadRoot(&ev), ev.Tags.GetFirst([]string{"h", ""}).Value()
	}
	if root == "" {
		return nil, nil, errors.New("read_thread: no current thread: give event_id")
	}
	m := c.NewModel()
	if _, err := c.LoadThread(ctx, m, channel, root); err != nil {
		return nil, nil, hubErr("read_thread", err)
	}
	rows := m.Thread(root)
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("read_thread: no thread %s that you can read", root)
	}
	rows, more := page(rows, in.Before, limit(in.Limit))
	return text(rowsText(m.Names(), rows, more)), nil, nil
}

// page keeps the rows before the row before ("" : all), then the newest n.
func page(rows []chat.Row, before string, n int) ([]chat.Row, bool) {
	if before != "" {
		i := slices.IndexFunc(rows, func(r chat.Row) bool { return r.ID == before })
		if i < 0 {
			return nil, false
		}
		rows = rows[:i]
	}
	if len(rows) > n {
		return rows[len(rows)-n:], true
	}
	return rows, false
}

// channel resolves a channel argument ("" : the turn's).
func (s *Server) channel(ctx context.Context, arg string) (client.Channel, error) {
	if arg == "" {
		arg = s.turn().Channel
	}
	s.mu.Lock()
	e, ok := s.chans[arg]
	s.mu.Unlock()
	if ok && time.Since(e.at) < channelTTL {
		return e.ch, nil
	}
	ch, err := s.cfg.Client.ResolveChannel(ctx, arg)
	if err == nil {
		s.mu.Lock()
		s.chans[arg] = resolved{ch, time.Now()}
		s.mu.Unlock()
	}
	return ch, err
}

// channelTTL is how long a channel the server resolved (its id, name and
// members) is kept: the reads themselves are always the hub's to allow.
const channelTTL = 10 * time.Second

// resolved is a channel argument as the hub resolved it.
type resolved struct {
	ch client.Channel
	at time.Time
}

func (s *Server) readChannel(ctx context.Context, _ *mcp.CallToolRequest, in channelIn) (*mcp.CallToolResult, any, error) {
	ch, err := s.channel(ctx, in.Channel)
	if err != nil {
		return nil, nil, hubErr("read_channel", err)
	}
	n := limit(in.Limit)
	p, err := s.cfg.Client.History(ctx, ch.ID, n+1, in.Before)
	if err != nil {
		return nil, nil, hubErr("read_channel", err)
	}
	rows, more := page(p.Rows, "", n)
	return text(fmt.Sprintf("channel %s (%s)\n%s", ch.Name, ch.ID, rowsText(p.Model.Names(), rows, more))), nil, nil
}

func (s *Server) listChannels(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	chs, err := s.cfg.Client.Channels(ctx)
	if err != nil {
		return nil, nil, hubErr("list_channels", err)
	}
	return listText(chs, "(no channels)", func(ch client.Channel) string {
		role := "not a member"
		if ch.Role != "" {
			role = "you: " + ch.Role
		}
		l := fmt.Sprintf("%s (%s): %s %s, %d members, %s", ch.Name, ch.ID, ch.Visibility, ch.Type, len(ch.Members), role)
		if ch.Archived {
			l += ", archived"
		}
		if ch.About != "" {
			l += "\n  " + ch.About
		}
		return l
	}), nil, nil
}

func (s *Server) listMembers(ctx context.Context, _ *mcp.CallToolRequest, in membersIn) (*mcp.CallToolResult, any, error) {
	c := s.cfg.Client
	ch, err := s.channel(ctx, in.Channel)
	if err != nil {
		return nil, nil, hubErr("list_members", err)
	}
	if ch.Role == "" && ch.Visibility != "public" {
		return nil, nil, fmt.Errorf("list_members: channel %s is %s and you are not a member", ch.Name, ch.Visibility)
	}
	pks := make([]string, 0, len(ch.Members))
	for pk := range ch.Members {
		pks = append(pks, pk)
	}
	m := c.NewModel()
	if err := c.LoadNames(ctx, m, pks...); err != nil {
		return nil, nil, hubErr("list_members", err)
	}
	n := m.Names()
	sort.Slice(pks, func(i, j int) bool { return n.Name(pks[i]) < n.Name(pks[j]) })
	lines := []string{fmt.Sprintf("channel %s (%s): %d members", ch.Name, ch.ID, len(pks))}
	for _, pk := range pks {
		lines = append(lines, fmt.Sprintf("%s %s: %s", n.Name(pk), chat.ShortNpub(pk), ch.Members[pk]))
	}
	return text(strings.Join(lines, "\n")), nil, nil
}

func (s *Server) getEvent(ctx context.Context, _ *mcp.CallToolRequest, in eventIn) (*mcp.CallToolResult, any, error) {
	c := s.cfg.Client
	m := c.NewModel()
	ev, err := c.LoadEvent(ctx, m, in.ID)
	if err != nil {
		return nil, nil, hubErr("get_event", err)
	}
	if err := c.LoadNames(ctx, m, client.KeysShown([]nostr.Event{ev})...); err != nil {
		return nil, nil, hubErr("get_event", err)
	}
	r, ok := m.Row(ev.ID)
	if !ok {
		return text(fmt.Sprintf("[kind %d by %s at %s, event %s]\n%s", ev.Kind, m.Names().Name(ev.PubKey), ev.CreatedAt.Time().UTC().Format("2006-01-02T15:04:05Z"), ev.ID, ev.Content)), nil, nil
	}
	return text(fmt.Sprintf("channel %s\n%s", r.Channel, rowLine(m.Names(), r))), nil, nil
}

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
	c := s.cfg.Client
	o := client.SearchOptions{Limit: limit(in.Limit)}
	if in.Channel != "" {
		ch, err := s.channel(ctx, in.Channel)
		if err != nil {
			return nil, nil, hubErr("search", err)
		}
		o.Channel = ch.ID
	}
	hits, err := c.Search(ctx, in.Query, o)
	if err != nil {
		return nil, nil, hubErr("search", err)
	}
	return listText(hits, "(no matches)", func(h client.SearchHit) string {
		return fmt.Sprintf("[%s %s in %s at %s, event %s]\n%s", h.Name, chat.ShortNpub(h.Author), h.ChannelName, h.CreatedAt.Time().UTC().Format("2006-01-02T15:04:05Z"), h.ID, h.Excerpt)
	}), nil, nil
}
