package test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// quoteRow is the part of a --json row a quote adds.
type quoteRow struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Shown string `json:"shown"`
	Quote *struct {
		ID, Author, Name, Text string
	} `json:"quote"`
}

func quoteRows(t *testing.T, out string) map[string]quoteRow {
	t.Helper()
	m := map[string]quoteRow{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r quoteRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not NDJSON: %q", l)
		}
		m[r.ID] = r
	}
	return m
}

// Quotes through the real binary: `hive send --quote` writes one as
// flotilla does (a q tag and a nostr:nevent1 opening the text); it, a
// message flotilla wrote and one with only an inline nostr:note1 show in
// `hive read` (--json: quote {id, author, name, text}, shown without the
// reference; text: "[quoting alice: first line]") and in `hive chat` as the
// quoted message's author and first line, never the bech32.
func TestQuotesThroughCLIAndChatBinary(t *testing.T) {
	w := newChatWorld(t)
	alicePK := w.send(t, "alice", "warm-up").Author
	m1 := w.send(t, "alice", "deploy is done\nall green")

	sent := quoteRows(t, w.c.ok("send", "general", "nice work", "--quote", m1.ID[:8], "--profile", "bob", "--json"))
	var mine quoteRow
	for _, r := range sent {
		mine = r
	}
	if mine.Quote == nil || mine.Quote.ID != m1.ID || mine.Quote.Author != alicePK || mine.Quote.Name != "alice" ||
		mine.Quote.Text != "deploy is done" || mine.Shown != "nice work" || !strings.HasPrefix(mine.Text, "nostr:nevent1") {
		t.Fatalf("hive send --quote row: %+v quote %+v", mine, mine.Quote)
	}
	// as flotilla writes it: ["q", id, relay, author] and the nevent (id, relay, author) first
	stored := w.history(t, "alice")
	var ev nostr.Event
	for _, r := range stored {
		if r.ID == mine.ID {
			ev = nostr.Event{ID: r.ID, Content: r.Text}
		}
	}
	prefix, data, err := nip19.Decode(strings.TrimPrefix(strings.SplitN(ev.Content, "\n", 2)[0], "nostr:"))
	if err != nil || prefix != "nevent" || data.(nostr.EventPointer).ID != m1.ID || data.(nostr.EventPointer).Author != alicePK ||
		len(data.(nostr.EventPointer).Relays) != 1 || !strings.HasSuffix(ev.Content, "\n\nnice work") {
		t.Fatalf("quote text %q: %v %v", ev.Content, prefix, data)
	}

	// flotilla's own quote (h, "-", q, the nevent then a blank line), and a
	// message naming m1 only inline by note1
	ne, _ := nip19.EncodeEvent(m1.ID, []string{w.hub.URL}, alicePK)
	flot := w.publish(t, "bob", nostr.Event{Kind: 9, CreatedAt: nostr.Now(), Content: "nostr:" + ne + "\n\nlooks right",
		Tags: nostr.Tags{{"h", "general"}, {"-"}, {"q", m1.ID, w.hub.URL, alicePK}}})
	note, _ := nip19.EncodeNote(m1.ID)
	inline := w.publish(t, "alice", client.Message("general", "see nostr:"+note+" for the log"))
	// a quote of a message in another channel bob is not in (open: he may
	// read it), which no page he loads holds
	w.c.ok("channel", "create", "ops", "--profile", "alice")
	elsewhere := rows(t, w.c.ok("send", "ops", "rollback plan ready", "--profile", "alice", "--json"))[0]
	w.c.ok("send", "general", "good to know", "--quote", elsewhere.ID, "--profile", "bob")

	got := quoteRows(t, w.c.ok("read", "general", "--profile", "bob", "--json"))
	for id, want := range map[string]string{mine.ID: "nice work", flot.ID: "looks right", inline.ID: "see for the log"} {
		r := got[id]
		if r.Quote == nil || r.Quote.ID != m1.ID || r.Quote.Author != alicePK || r.Quote.Name != "alice" || r.Quote.Text != "deploy is done" || r.Shown != want {
			t.Errorf("hive read --json row %s: shown %q quote %+v", id[:8], r.Shown, r.Quote)
		}
	}
	if got[m1.ID].Quote != nil {
		t.Errorf("the quoted message quotes nothing, got %+v", got[m1.ID].Quote)
	}
	plain := w.c.ok("read", "general", "--profile", "bob")
	for _, want := range []string{"[quoting alice: deploy is done] nice work", "[quoting alice: deploy is done] looks right", "[quoting alice: deploy is done] see for the log",
		"[quoting alice: rollback plan ready] good to know"} {
		if !strings.Contains(plain, want) {
			t.Errorf("hive read does not show %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "nevent1") || strings.Contains(plain, "note1") {
		t.Errorf("hive read shows a bech32 reference:\n%s", plain)
	}

	pane := startChat(t, w.c.home, 100, 30, "general", "--profile", "bob")
	screen := pane.waitText("┃ alice: deploy is done", "looks right", "see for the log", "┃ alice: rollback plan ready")
	if strings.Contains(screen, "nevent1") || strings.Contains(screen, "note1") {
		t.Fatalf("hive chat shows a bech32 reference:\n%s", screen)
	}
	if strings.Count(screen, "┃ alice: deploy is done") != 3 {
		t.Fatalf("hive chat shows %d quotes, want 3:\n%s", strings.Count(screen, "┃ alice: deploy is done"), screen)
	}
}
