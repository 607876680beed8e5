package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The web chat shows a quote (hive send --quote, as flotilla writes one) as
// the quoted message's author and first line above the text, and never the
// nostr:nevent1 reference, at phone and desktop width; a quoted message of
// a channel the page never loads is fetched for it, on a page and live.
func TestWebShowsQuotes(t *testing.T) {
	w := startWebTeam(t)
	quoted := w.send(t, "bob", "room", "deploy is done\nall green")
	quoting := w.send(t, "owner", "room", "nice work", "--quote", quoted[:8])
	w.cli.ok("channel", "create", "ops", "--profile", "bob") // open, and the owner is not in it: the page loads none of it
	elsewhere := w.send(t, "bob", "ops", "rollback plan ready")
	across := w.send(t, "owner", "room", "good to know", "--quote", elsewhere)
	w.signInAsOwner(t)
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
	// a message of another channel, which no page of room loads, is fetched for its quote
	w.waitMessage(t, tid("timeline"), "good to know")
	if q := w.b.text(messageSel(across) + " " + tid("message-quote")); q != "bob rollback plan ready" {
		t.Fatalf("the quote of ops's message reads %q", q)
	}
	// and so is one a live message quotes
	hotfix := w.send(t, "bob", "ops", "hotfix deployed")
	live := w.send(t, "bob", "room", "heads up", "--quote", hotfix)
	w.b.waitUntil("the live quote shows the quoted message", fmt.Sprintf(`document.querySelector(%q)?.textContent === "bob hotfix deployed"`,
		messageSel(live)+" "+tid("message-quote")))
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
