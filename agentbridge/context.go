package agentbridge

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
)

// contextScan bounds the events a channel's context is first loaded from.
const contextScan = 500

// contextTimeout bounds the hub queries of a prompt's context: past it the
// prompt goes out without context.
const contextTimeout = 5 * time.Second

// promptContext is the context block of one prompt and the seen mark it
// sets once the prompt went out.
type promptContext struct {
	text  string   // "" when there is nothing new to show
	scope string   // a channel id, or "thread:" + root ("" for none)
	upTo  SeenMark // the newest row the prompt covers
	names func(pk string) string
}

// contextBuilder builds prompt contexts from the context cache, as the
// agent's config asks. It holds nothing that changes (the cache and the
// state have their own locks).
type contextBuilder struct {
	cfg   *AgentConfig
	me    string // the agent's key
	cache *ctxCache
	state *State
	log   *slog.Logger
}

// buildContext gives the turn's newest mention what the session has not
// seen yet (spec/agents.md, "Context"): in a thread, the thread's earlier
// messages, root first; at the top level (context = "channel"), the
// channel's messages since the session's last turn there. It reads the
// context cache, which asks the hub only for what it does not hold yet.
func (b *contextBuilder) buildContext(ctx context.Context, h HubConn, session string, batch []Mention) promptContext {
	if h == nil {
		return promptContext{names: chat.ShortNpub}
	}
	return b.contextFrom(ctx, h.Client(), session, batch)
}

// contextFrom is buildContext over the client cl, which the context cache
// uses only for what it does not hold yet.
func (b *contextBuilder) contextFrom(ctx context.Context, cl *client.Client, session string, batch []Mention) promptContext {
	t := target(batch)
	pc := promptContext{names: chat.ShortNpub}
	if t == nil || b.cfg.Context == ContextNone {
		return pc
	}
	thread := t.Root != "" && t.Root != t.ID
	if !thread && b.cfg.Context != ContextChannel {
		return pc
	}
	qctx, cancel := context.WithTimeout(ctx, contextTimeout)
	defer cancel()
	scope := t.Channel
	if thread {
		scope = "thread:" + t.Root
	}
	seen := b.state.Seen(session, scope)
	cc := b.cache
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if err := cc.ensure(qctx, cl, t, thread, seen); err != nil {
		b.log.Warn("could not load the prompt's context; prompting without it", "channel", t.Channel, "err", err)
		return pc
	}
	m := cc.model
	var rows []chat.Row
	if thread {
		rows = m.ThreadSince(t.Root, seen.At)
	} else {
		rows = m.MainSince(t.Channel, seen.At)
	}
	inBatch := map[string]bool{}
	for _, m := range batch {
		inBatch[m.ID] = true
	}
	from := 0 // rows after the seen mark: after its row, or newer than it when that row is gone
	for i, row := range rows {
		if seen.ID != "" && row.ID == seen.ID {
			from = i + 1
			break
		}
		if at, _ := m.Millis(row.ID); at <= seen.At {
			from = i + 1
		}
	}
	var unseen []chat.Row
	for _, row := range rows[from:] {
		if inBatch[row.ID] {
			break // the mentions come after their context
		}
		if !row.Deleted && !row.System {
			unseen = append(unseen, row)
		}
	}
	authors := make([]string, 0, len(unseen)+len(batch))
	for _, row := range unseen {
		authors = append(authors, row.Author)
	}
	for _, m := range batch {
		authors = append(authors, m.Author)
	}
	if err := cl.LoadNames(qctx, m, authors...); err != nil { // only keys not asked for yet
		b.log.Warn("could not load the names of the prompt's authors", "err", err)
	}
	names := make(map[string]string, len(batch))
	for _, mn := range batch {
		names[mn.Author] = nameOf(m.Names(), mn.Author)
	}
	pc.names = func(pk string) string {
		if n, ok := names[pk]; ok {
			return n
		}
		return chat.ShortNpub(pk)
	}
	at, ok := m.Millis(t.ID)
	if !ok {
		at = t.At.UnixMilli()
	}
	pc.scope, pc.upTo = scope, SeenMark{ID: t.ID, At: at}
	pc.text = b.renderContext(m.Names(), unseen, thread)
	return pc
}

// renderContext writes rows (oldest first) as the context block, keeping
// the newest within context_messages and context_bytes.
func (b *contextBuilder) renderContext(n *chat.Names, rows []chat.Row, thread bool) string {
	if len(rows) == 0 {
		return ""
	}
	var lines []string
	size := 0
	for i := len(rows) - 1; i >= 0 && len(lines) < b.cfg.ContextMessages; i-- {
		l := b.contextLine(n, rows[i])
		if size+len(l) > b.cfg.ContextBytes && len(lines) > 0 {
			break
		}
		if size+len(l) > b.cfg.ContextBytes {
			l = clipTo(l, b.cfg.ContextBytes)
		}
		lines = append(lines, l)
		size += len(l)
	}
	slices.Reverse(lines)
	var out strings.Builder
	if thread {
		out.WriteString("[context: the earlier messages of this thread, root first, that you have not seen yet]\n")
	} else {
		out.WriteString("[context: the channel's messages since your last turn in it, oldest first]\n")
	}
	if left := len(rows) - len(lines); left > 0 {
		fmt.Fprintf(&out, "(%d earlier message(s) left out)\n", left)
	}
	out.WriteString(strings.Join(lines, "\n"))
	return out.String()
}

// contextLine is one message of the context: who, when, its id, its text.
func (b *contextBuilder) contextLine(n *chat.Names, row chat.Row) string {
	who := nameOf(n, row.Author)
	if row.Author == b.me {
		who = "you (" + who + ")"
	}
	edited := ""
	if row.Edited {
		edited = ", edited"
	}
	return fmt.Sprintf("[%s at %s%s, event %s]\n%s", who, row.CreatedAt.Time().UTC().Format(time.RFC3339), edited, row.ID, row.Text)
}

// nameOf is a key as prompts show it: its display name and short npub.
func nameOf(n *chat.Names, pk string) string {
	short := chat.ShortNpub(pk)
	if name := n.Name(pk); name != short {
		return name + " " + short
	}
	return short
}

// clipTo cuts s to at most n bytes at a rune boundary.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
