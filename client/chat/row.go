package chat

import (
	"slices"
	"sort"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Row is one timeline row as a person sees it: a message or a system row
// with its overlays applied.
type Row struct {
	ID        string          `json:"id"`
	Channel   string          `json:"channel"`
	Author    string          `json:"author"`
	CreatedAt nostr.Timestamp `json:"created_at"`
	Kind      int             `json:"kind"`
	Text      string          `json:"text"`
	System    bool            `json:"system,omitempty"`     // a hub-signed system row (40099)
	Edited    bool            `json:"edited,omitempty"`     // Text is the newest edit's
	EditedAt  nostr.Timestamp `json:"edited_at,omitempty"`  // when that edit was made
	Deleted   bool            `json:"deleted,omitempty"`    // a deleted thread root kept for its replies (Text empty)
	Root      string          `json:"root,omitempty"`       // the thread root this row replies in
	ReplyTo   string          `json:"reply_to,omitempty"`   // the message it answers
	Mentions  []string        `json:"mentions,omitempty"`   // p-tagged keys
	Approval  *Approval       `json:"approval,omitempty"`   // a workflow's approval request: the run and the gate's step
	Reactions []Reaction      `json:"reactions,omitempty"`  // per emoji, first reacted first
	Receipts  []Receipt       `json:"receipts,omitempty"`   // per agent (sorted by key): where its answer stands
	Run       *RunBadge       `json:"run,omitempty"`        // a workflow run's card: its newest record by the card's author
	Replies   int             `json:"replies,omitempty"`    // visible replies in its thread (a root)
	LastReply nostr.Timestamp `json:"last_reply,omitempty"` // created_at of the newest of them
	Quote     *Quote          `json:"quote,omitempty"`      // the message it quotes (quote.go)
}

// Reaction is one emoji on a row: how many keys reacted with it, and who
// (sorted).
type Reaction struct {
	Emoji string   `json:"emoji"`
	Count int      `json:"count"`
	Who   []string `json:"who"`
}

// Receipt is an agent's newest receipt on a row: where its answer to the
// row stands (spec/agents.md, "Receipts").
type Receipt struct {
	Agent  string          `json:"agent"`
	Status string          `json:"status"`           // kinds.ReceiptQueued, ...
	Reason string          `json:"reason,omitempty"` // why it failed or is not answered
	At     nostr.Timestamp `json:"at"`
}

// row is a loaded message with what the model derives from its tags.
type row struct {
	id, channel, author string
	created             nostr.Timestamp
	own                 int64 // Millis of the event
	k                   key   // place in its timeline
	kind                int
	text                string
	parent, root        string // "" for a top-level row
	mentions            []string
	approval            *Approval
	quote, quoteAuthor  string // the message it quotes, and its author as the q tag or reference names it
}

// isRowKind reports whether events of kind n are timeline rows.
func isRowKind(n int) bool {
	return n == kinds.SystemRow || kinds.Classify(n).Partition == kinds.Content
}

// counts reports whether a row of kind n can be unread (the partition rule:
// content kinds only).
func counts(n int) bool { return kinds.Classify(n).Partition == kinds.Content }

func newRow(ev *nostr.Event) *row {
	r := &row{id: ev.ID, channel: channelOf(ev), author: ev.PubKey, created: ev.CreatedAt, own: Millis(ev), kind: ev.Kind, text: ev.Content}
	r.k = key{r.own, r.id}
	if root := kinds.ThreadRoot(ev); root != ev.ID {
		r.root = root
		r.parent = kinds.ReplyTo(ev)
	}
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "p" {
			r.mentions = append(r.mentions, t[1])
		}
		if len(t) >= 3 && t[0] == "approval" && r.approval == nil && ev.Kind == kinds.Message {
			r.approval = &Approval{Run: t[1], Step: t[2]}
		}
	}
	if ev.Kind != kinds.SystemRow {
		r.quote, r.quoteAuthor = quoteOf(ev)
	}
	return r
}

// Approval is what an approval request names (its ["approval", run, step]
// tag, spec/workflows.md "Approval gates"): surfaces offer approve and deny
// on it to the people it mentions.
type Approval struct {
	Run  string `json:"run"`
	Step string `json:"step"`
}

func channelOf(ev *nostr.Event) string { return tagOf(ev, "h") }

// tagOf is the value of ev's first tag called name ("" without one).
func tagOf(ev *nostr.Event, name string) string {
	if t := ev.Tags.Find(name); t != nil {
		return t[1]
	}
	return ""
}

// view is r as a person sees it.
func (m *Model) view(r *row) Row {
	out := Row{ID: r.id, Channel: r.channel, Author: r.author, CreatedAt: r.created, Kind: r.kind, Text: r.text,
		System: r.kind == kinds.SystemRow, Root: r.root, ReplyTo: r.parent, Mentions: r.mentions}
	if m.gone[r.id] {
		out.Deleted, out.Text, out.Mentions = true, "", nil
	} else {
		out.Quote = m.quote(r)
		out.Approval = r.approval
	}
	var edit *overlay
	var rxs []Reaction // in first-reacted order
	var firsts []key
	receipts := map[string]*overlay{} // agent -> its newest receipt
	var run *overlay                  // the card's newest run record by its author
	for _, o := range m.byTarget[r.id] {
		if m.gone[o.id] {
			continue
		}
		if o.kind == kinds.RunRecord {
			if o.author == r.author && o.run.Status != kinds.RunIgnored && (run == nil || newer(o.k, run.k)) {
				run = o
			}
			continue
		}
		if o.kind == kinds.Receipt {
			if prev := receipts[o.author]; prev == nil || newer(o.k, prev.k) {
				receipts[o.author] = o
			}
			continue
		}
		if o.kind == kinds.Edit {
			if edit == nil || newer(o.k, edit.k) {
				edit = o
			}
			continue
		}
		i := slices.IndexFunc(rxs, func(x Reaction) bool { return x.Emoji == o.text })
		if i < 0 {
			rxs, firsts, i = append(rxs, Reaction{Emoji: o.text}), append(firsts, o.k), len(rxs)
		}
		if o.k.less(firsts[i]) {
			firsts[i] = o.k
		}
		if !slices.Contains(rxs[i].Who, o.author) {
			rxs[i].Who = append(rxs[i].Who, o.author)
		}
	}
	if edit != nil && !out.Deleted {
		out.Text, out.Edited, out.EditedAt = edit.text, true, edit.created
	}
	if !out.Deleted && len(rxs) > 0 {
		for i := range rxs {
			rxs[i].Count = len(rxs[i].Who)
			sort.Strings(rxs[i].Who)
		}
		idx := make([]int, len(rxs))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return firsts[idx[a]].less(firsts[idx[b]]) })
		out.Reactions = make([]Reaction, len(rxs))
		for i, j := range idx {
			out.Reactions[i] = rxs[j]
		}
	}
	if !out.Deleted {
		out.Receipts = receiptViews(receipts)
		if run != nil {
			b := *run.run
			out.Run = &b
		}
	}
	if r.root == "" {
		out.Replies, out.LastReply = m.replyStats(r.id)
	}
	return out
}

// receiptViews lists the newest receipt of each agent, by agent key.
func receiptViews(newest map[string]*overlay) []Receipt {
	if len(newest) == 0 {
		return nil
	}
	out := make([]Receipt, 0, len(newest))
	for agent, o := range newest {
		out = append(out, Receipt{Agent: agent, Status: o.status, Reason: o.text, At: o.created})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out
}

// replyStats counts the visible replies in root's thread and the newest one's time.
func (m *Model) replyStats(root string) (n int, last nostr.Timestamp) {
	th := m.threads[root]
	if th == nil {
		return 0, 0
	}
	for _, r := range *th {
		if !m.gone[r.id] {
			n++
			last = max(last, r.created)
		}
	}
	return n, last
}
