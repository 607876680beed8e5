package chat

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// Quotes (spec/chat.md, "Quotes"): a message that quotes another names it
// with a `q` tag (NIP-18, NIP-C7: ["q", id, relay, author]) and, as flotilla
// writes one, a `nostr:nevent1...` at the start of its text. The row shows
// the quoted message's author and first line; its shown text drops every
// `nostr:nevent1...`/`nostr:note1...` reference, so no surface shows raw
// bech32.

// Quote is the message a row quotes, as a person sees it: its id and author
// (from the q tag or the reference when the message is not loaded), the
// author's name, and its first line ("" when it is not loaded or deleted).
type Quote struct {
	ID     string `json:"id"`
	Author string `json:"author,omitempty"`
	Name   string `json:"name,omitempty"`
	Text   string `json:"text"`
}

// Line is the quote in one line as the surfaces show it: "NAME: first
// line", "NAME: (message not loaded or deleted)" without its text, and
// "(a message not loaded)" without an author either.
func (q Quote) Line() string {
	text := q.Text
	if text == "" {
		text = "(message not loaded or deleted)"
	}
	if q.Name == "" {
		return text
	}
	return q.Name + ": " + text
}

// QuoteLineMax bounds a quote's first line, in characters.
const QuoteLineMax = 120

// eventRef matches a NIP-21 reference to an event: nostr:nevent1... or
// nostr:note1... (bech32 characters).
var eventRef = regexp.MustCompile(`nostr:(?:nevent|note)1[02-9ac-hj-np-z]+`)

// eventRefSpaced is a reference with the blanks before it on its line.
var eventRefSpaced = regexp.MustCompile(`[ \t]*nostr:(?:nevent|note)1[02-9ac-hj-np-z]+`)

// quoteOf is the message ev quotes: its q tag's id (and author), else the
// first event reference in its text that decodes; "" when none.
func quoteOf(ev *nostr.Event) (id, author string) {
	if runCard(ev) {
		return "", "" // its q tag is the run's claim, not a message
	}
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "q" && nostr.IsValid32ByteHex(t[1]) {
			if len(t) >= 4 && nostr.IsValid32ByteHex(t[3]) {
				author = t[3]
			}
			return t[1], author
		}
	}
	for _, ref := range eventRef.FindAllString(ev.Content, -1) {
		if id, author = decodeEventRef(ref); id != "" {
			return id, author
		}
	}
	return "", ""
}

// QuotedAuthor is the author of the message ev quotes as its q tag or
// reference names it ("" if neither does), whose name a reader loads.
func QuotedAuthor(ev *nostr.Event) string {
	_, author := quoteOf(ev)
	return author
}

// decodeEventRef reads a nostr:note1 or nostr:nevent1 reference.
func decodeEventRef(ref string) (id, author string) {
	prefix, v, err := nip19.Decode(strings.TrimPrefix(ref, "nostr:"))
	if err != nil {
		return "", ""
	}
	switch prefix {
	case "note":
		if s, ok := v.(string); ok && nostr.IsValid32ByteHex(s) {
			return s, ""
		}
	case "nevent":
		if p, ok := v.(nostr.EventPointer); ok && nostr.IsValid32ByteHex(p.ID) {
			if nostr.IsValid32ByteHex(p.Author) {
				author = p.Author
			}
			return p.ID, author
		}
	}
	return "", ""
}

// blankLines matches the run of blank lines a removed reference leaves.
var blankLines = regexp.MustCompile(`\n[ \t]*\n([ \t]*\n)+`)

// dropRefs removes every event reference from text, with the blank space
// it leaves at the start, the end or between paragraphs.
func dropRefs(text string) string {
	if !strings.Contains(text, "nostr:n") {
		return text
	}
	out := eventRefSpaced.ReplaceAllString(text, "")
	if out == text {
		return text
	}
	out = blankLines.ReplaceAllString(out, "\n\n")
	return strings.TrimSpace(out)
}

// firstLine is text's first non-empty line, at most QuoteLineMax
// characters (cut with "…").
func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if utf8.RuneCountInString(l) > QuoteLineMax {
				l = string([]rune(l)[:QuoteLineMax-1]) + "…"
			}
			return l
		}
	}
	return ""
}

// quote is the Quote r shows, or nil when it quotes nothing.
func (m *Model) quote(r *row) *Quote {
	if r.quote == "" {
		return nil
	}
	q := &Quote{ID: r.quote, Author: r.quoteAuthor}
	src := m.rows[r.quote]
	if src == nil {
		src = m.quoted[r.quote]
	}
	if src != nil {
		q.Author = src.author
		if !m.gone[src.id] {
			q.Text = firstLine(m.Text(Row{System: src.kind == kinds.SystemRow, Text: m.currentText(src), Mentions: src.mentions}))
		}
	}
	if q.Author != "" {
		q.Name = m.names.Name(q.Author)
	}
	return q
}

// currentText is a row's text with its newest edit applied.
func (m *Model) currentText(r *row) string {
	var edit *overlay
	for _, o := range m.byTarget[r.id] {
		if o.kind == kinds.Edit && !m.gone[o.id] && (edit == nil || newer(o.k, edit.k)) {
			edit = o
		}
	}
	if edit != nil {
		return edit.text
	}
	return r.text
}

// MissingQuotes lists the messages the rows of evs quote that m has
// loaded neither as rows nor with ApplyQuoted, each once, at most max.
func (m *Model) MissingQuotes(evs []nostr.Event, max int) []string {
	var out []string
	for i := range evs {
		r := m.rows[evs[i].ID]
		if r == nil || r.quote == "" || m.rows[r.quote] != nil || m.quoted[r.quote] != nil || slices.Contains(out, r.quote) {
			continue
		}
		if out = append(out, r.quote); len(out) == max {
			break
		}
	}
	return out
}

// ApplyQuoted keeps a message that rows quote without making it a row of
// any timeline (it may be in another channel, or older than the pages
// loaded): the quotes naming it show its author and first line. A row of
// the same id, applied before or after, takes its place.
func (m *Model) ApplyQuoted(ev *nostr.Event) {
	if !isRowKind(ev.Kind) || ev.ID == "" {
		return
	}
	m.quoted[ev.ID] = newRow(ev)
}

// runCard: ev is a workflow run's card (an a tag naming a workflow
// definition, 30460:...), whose q tag names the run's claim
// (spec/workflows.md): it quotes nothing.
func runCard(ev *nostr.Event) bool {
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "a" && strings.HasPrefix(t[1], workflowAddrPrefix) {
			return true
		}
	}
	return false
}

// workflowAddrPrefix starts the address of a workflow definition.
var workflowAddrPrefix = strconv.Itoa(kinds.WorkflowDef) + ":"
