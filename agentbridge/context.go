package agentbridge

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/nbd-wtf/go-nostr"
)

// contextScan bounds the events a prompt's context is chosen from.
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

// buildContext gives the turn's newest mention what the session has not
// seen yet (spec/agents.md, "Context"): in a thread, the thread's earlier
// messages, root first; at the top level (context = "channel"), the
// channel's messages since the session's last turn there.
func (r *runner) buildContext(ctx context.Context, h Hub, session string, batch []Mention) promptContext {
	t := target(batch)
	pc := promptContext{names: func(pk string) string { return chat.ShortNpub(pk) }}
	if t == nil || r.cfg.Context == ContextNone || h == nil {
		return pc
	}
	thread := t.Root != "" && t.Root != t.ID
	if !thread && r.cfg.Context != ContextChannel {
		return pc
	}
	qctx, cancel := context.WithTimeout(ctx, contextTimeout)
	defer cancel()
	c := h.Client()
	m := c.NewModel()
	scope := t.Channel
	if thread {
		scope = "thread:" + t.Root
	}
	seen := r.state.Seen(session, scope)
	evs, err := r.loadContext(qctx, c, m, t, thread, seen)
	if err != nil {
		r.log.Warn("could not load the prompt's context; prompting without it", "channel", t.Channel, "err", err)
		return pc
	}
	pc.names = func(pk string) string { return nameOf(m.Names(), pk) }
	keys := make(map[string]int64, len(evs))
	for i := range evs {
		keys[evs[i].ID] = chat.Millis(&evs[i])
	}
	var rows []chat.Row
	if thread {
		pc.scope, rows = "thread:"+t.Root, m.Thread(t.Root)
	} else {
		pc.scope, rows = t.Channel, m.Main(t.Channel)
	}
	inBatch := map[string]bool{}
	for _, b := range batch {
		inBatch[b.ID] = true
	}
	from := 0 // rows after the seen mark: after its row, or newer than it when that row is gone
	for i, row := range rows {
		if seen.ID != "" && row.ID == seen.ID {
			from = i + 1
			break
		}
		if keys[row.ID] <= seen.At {
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
	pc.upTo = SeenMark{ID: t.ID, At: keys[t.ID]}
	pc.text = r.renderContext(m.Names(), unseen, thread)
	return pc
}

// loadContext loads into m the thread of t (root and replies) or the
// newest rows of t's channel from the second of the seen mark on, with
// overlays and names.
func (r *runner) loadContext(ctx context.Context, c *client.Client, m *chat.Model, t *Mention, thread bool, seen SeenMark) ([]nostr.Event, error) {
	if thread {
		return c.LoadThread(ctx, m, t.Channel, t.Root)
	}
	f := nostr.Filter{Kinds: client.TimelineKinds(), Tags: nostr.TagMap{"h": {t.Channel}}, Limit: contextScan}
	if seen.At > 0 {
		since := nostr.Timestamp(seen.At / 1000)
		f.Since = &since
	}
	return c.LoadRows(ctx, m, f)
}

// renderContext writes rows (oldest first) as the context block, keeping
// the newest within context_messages and context_bytes.
func (r *runner) renderContext(n *chat.Names, rows []chat.Row, thread bool) string {
	if len(rows) == 0 {
		return ""
	}
	var lines []string
	size := 0
	for i := len(rows) - 1; i >= 0 && len(lines) < r.cfg.ContextMessages; i-- {
		l := r.contextLine(n, rows[i])
		if size+len(l) > r.cfg.ContextBytes && len(lines) > 0 {
			break
		}
		if size+len(l) > r.cfg.ContextBytes {
			l = clipTo(l, r.cfg.ContextBytes)
		}
		lines = append(lines, l)
		size += len(l)
	}
	slices.Reverse(lines)
	var b strings.Builder
	if thread {
		b.WriteString("[context: the earlier messages of this thread, root first, that you have not seen yet]\n")
	} else {
		b.WriteString("[context: the channel's messages since your last turn in it, oldest first]\n")
	}
	if left := len(rows) - len(lines); left > 0 {
		fmt.Fprintf(&b, "(%d earlier message(s) left out)\n", left)
	}
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

// contextLine is one message of the context: who, when, its id, its text.
func (r *runner) contextLine(n *chat.Names, row chat.Row) string {
	who := nameOf(n, row.Author)
	if row.Author == r.keys.PublicHex {
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
