package agentmcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ainb/hive/kinds"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// WriteTools are the tools that post; they follow the agent's permissions.
func WriteTools() []string { return []string{"post_message", "react"} }

type postIn struct {
	Text     string `json:"text" jsonschema:"the message"`
	Thread   string `json:"thread,omitempty" jsonschema:"reply in the thread of this message id instead of the current thread"`
	Channel  string `json:"channel,omitempty" jsonschema:"post at the top level of this channel (id or name) instead"`
	TopLevel bool   `json:"top_level,omitempty" jsonschema:"post at the top level of the current channel instead of replying in the thread"`
}

type reactIn struct {
	EventID string `json:"event_id" jsonschema:"the message to react to"`
	Emoji   string `json:"emoji" jsonschema:"one emoji, e.g. 👍"`
}

func (s *Server) addWriteTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "post_message", Description: "Post a message: by default a reply in the thread you were asked in. Your final answer is posted for you; use this only for extra messages (at most 10 posts a turn)."}, s.postMessage)
	mcp.AddTool(srv, &mcp.Tool{Name: "react", Description: "React to a message with an emoji (counts against the 10 posts a turn)."}, s.react)
}

func (s *Server) postMessage(ctx context.Context, _ *mcp.CallToolRequest, in postIn) (*mcp.CallToolResult, any, error) {
	if in.Text == "" {
		return nil, nil, errors.New("post_message: text is empty")
	}
	c, t := s.cfg.Client, s.turn()
	tags := nostr.Tags{}
	where := ""
	switch {
	case in.Channel != "":
		ch, err := s.channel(ctx, in.Channel)
		if err != nil {
			return nil, nil, hubErr("post_message", err)
		}
		if err := s.mayWrite(t, ch.ID); err != nil {
			return nil, nil, fmt.Errorf("post_message: %w", err)
		}
		tags, where = append(tags, nostr.Tag{"h", ch.ID}), "top level of "+ch.Name
	case in.Thread != "":
		ev, err := c.Event(ctx, in.Thread)
		if err != nil {
			return nil, nil, hubErr("post_message", err)
		}
		root, ch := kinds.ThreadRoot(&ev), ev.Tags.GetFirst([]string{"h", ""}).Value()
		if err := s.mayWrite(t, ch); err != nil {
			return nil, nil, fmt.Errorf("post_message: %w", err)
		}
		tags = append(tags, nostr.Tag{"h", ch}, nostr.Tag{"e", root, "", "root"}, nostr.Tag{"e", ev.ID, "", "reply"})
		where = "thread " + root
	case in.TopLevel || t.Thread == "":
		tags, where = append(tags, nostr.Tag{"h", t.Channel}), "top level of the current channel"
	default:
		tags = append(tags, nostr.Tag{"h", t.Channel}, nostr.Tag{"e", t.Thread, "", "root"})
		if t.ReplyTo != "" {
			tags = append(tags, nostr.Tag{"e", t.ReplyTo, "", "reply"})
		}
		where = "the current thread"
	}
	if err := s.spend(t); err != nil {
		return nil, nil, fmt.Errorf("post_message: %w", err)
	}
	tags = append(tags, nostr.Tag{"hops", strconv.Itoa(t.Hops)})
	ev, err := c.Publish(ctx, nostr.Event{Kind: kinds.Message, Content: in.Text, Tags: tags})
	if err != nil {
		return nil, nil, hubErr("post_message", err)
	}
	return text(fmt.Sprintf("posted event %s in %s", ev.ID, where)), nil, nil
}

func (s *Server) react(ctx context.Context, _ *mcp.CallToolRequest, in reactIn) (*mcp.CallToolResult, any, error) {
	c, t := s.cfg.Client, s.turn()
	target, err := c.Event(ctx, in.EventID)
	if err != nil {
		return nil, nil, hubErr("react", err)
	}
	if in.Emoji == "" {
		return nil, nil, errors.New("react: emoji is empty")
	}
	ch := target.Tags.GetFirst([]string{"h", ""}).Value()
	if err := s.mayWrite(t, ch); err != nil {
		return nil, nil, fmt.Errorf("react: %w", err)
	}
	if err := s.spend(t); err != nil {
		return nil, nil, fmt.Errorf("react: %w", err)
	}
	tags := nostr.Tags{{"h", ch}, {"e", target.ID}, {"p", target.PubKey}}
	if _, err := c.Publish(ctx, nostr.Event{Kind: kinds.Reaction, Content: in.Emoji, Tags: tags}); err != nil {
		return nil, nil, hubErr("react", err)
	}
	return text("reacted " + in.Emoji + " to " + target.ID), nil, nil
}
