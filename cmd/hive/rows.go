package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/client/termtext"
	"github.com/spf13/cobra"
)

// rowOut is a timeline row as the CLI prints it: the model's row with the
// author's name, the text as shown, and (following) what changed.
type rowOut struct {
	Op string `json:"op,omitempty"` // added, edited, deleted, reacted (tail --follow)
	chat.Row
	Name   string `json:"name"`   // the author as shown (a device as its owner)
	Label  string `json:"label"`  // with the device's name where it is one
	Member string `json:"member"` // the member the author acts for: a paired device's owner, else the author
	Shown  string `json:"shown"`  // the text as shown: mentions as @name, a system row in words
}

// printer prints rows of a model; several says rows of more than one
// channel are printed (each line then names its channel).
type printer struct {
	cmd     *cobra.Command
	m       *chat.Model
	several bool
}

// out is r as printed.
func (p printer) out(op chat.Op, r chat.Row) rowOut {
	n := p.m.Names()
	out := rowOut{Row: r, Name: n.Name(r.Author), Label: n.Label(r.Author), Member: n.ActsFor(r.Author), Shown: p.m.Text(r)}
	if op != chat.Added {
		out.Op = string(op)
	}
	return out
}

func (p printer) row(op chat.Op, r chat.Row) error {
	out := p.out(op, r)
	return output(p.cmd, out, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, p.line(out))
		return err
	})
}

// bodyIndent starts every line of a message after its first, so that no
// line of it starts where a row header does.
const bodyIndent = "    "

// line is r as one row of text, every field from the hub shown safely
// (termtext: a message's own lines indented).
func (p printer) line(r rowOut) string {
	var b strings.Builder
	b.WriteString(time.Unix(int64(r.CreatedAt), 0).Format("2006-01-02 15:04:05"))
	b.WriteString(" " + shortID(r.ID))
	if r.Op != "" {
		b.WriteString(" [" + r.Op + "]")
	}
	if p.several {
		b.WriteString(" #" + line(r.Channel))
	}
	switch {
	case r.Op == string(chat.Deleted):
		return b.String()
	case r.System:
		b.WriteString(" — " + termtext.Body(r.Shown, bodyIndent))
		return b.String()
	}
	b.WriteString(" " + line(r.Label))
	if r.ReplyTo != "" {
		b.WriteString(" ↳" + shortID(r.ReplyTo))
	}
	text := r.Shown
	if r.Deleted {
		text = "(deleted)"
	}
	b.WriteString(": ")
	if r.Quote != nil {
		b.WriteString("[quoting " + line(r.Quote.Line()) + "]")
		if text != "" {
			b.WriteString(" ")
		}
	}
	b.WriteString(termtext.Body(text, bodyIndent))
	var extra []string
	if r.Edited {
		extra = append(extra, "edited")
	}
	for _, rx := range r.Reactions {
		extra = append(extra, fmt.Sprintf("%s %d", line(rx.Emoji), rx.Count))
	}
	if r.Replies > 0 {
		extra = append(extra, fmt.Sprintf("%d replies", r.Replies))
	}
	for _, rc := range r.Receipts {
		receipt := line(p.m.Names().Name(rc.Agent) + " " + rc.Status)
		if rc.Reason != "" {
			reason, _, _ := strings.Cut(rc.Reason, "\n")
			receipt += ": " + line(reason)
		}
		extra = append(extra, receipt)
	}
	if r.Run != nil {
		words, _, _ := strings.Cut(r.Run.Words(time.Local), "\n")
		extra = append(extra, "run: "+line(words))
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	return b.String()
}

// shortID is the id prefix the CLI prints; react, edit, delete and
// --reply-to take it back.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
