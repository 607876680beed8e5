package test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The web chat shows a quote (hive send --quote, as flotilla writes one) as
// the quoted message's author and first line above the text, and never the
// nostr:nevent1 reference, at phone and desktop width.
func TestWebShowsQuotes(t *testing.T) {
	w := startWebTeam(t)
	quoted := w.send(t, "bob", "room", "deploy is done\nall green")
	quoting := w.send(t, "owner", "room", "nice work", "--quote", quoted[:8])
	w.importKey(t, filepath.Join(w.h.Data, "admin.key"))
	w.openChannel(t, "room")
	w.waitMessage(t, tid("timeline"), "nice work")
	sel := messageSel(quoting)
	quote := w.b.text(sel + " " + tid("message-quote"))
	if quote != "bob deploy is done" {
		t.Fatalf("the quote reads %q, want the quoted author and first line", quote)
	}
	if id := evalAs[string](w.b, fmt.Sprintf(`document.querySelector(%q).dataset.quoteId`, sel+" "+tid("message-quote"))); id != quoted {
		t.Fatalf("the quote names %s, want %s", id, quoted)
	}
	if body := w.b.text(sel + " " + tid("message-text")); body != "nice work" {
		t.Fatalf("the quoting message's text reads %q", body)
	}
	if page := w.b.text(tid("timeline")); strings.Contains(page, "nevent1") || strings.Contains(page, "nostr:") {
		t.Fatalf("the timeline shows a bech32 reference: %q", page)
	}
	w.b.screenshot("quote-desktop")
	w.b.do("phone width", chromedp.EmulateViewport(390, 760))
	w.b.waitVisible(sel + " " + tid("message-quote"))
	w.b.screenshot("quote-phone")
	w.b.noConsoleErrors()
}
