package test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// A day of use, as issue 30 asks it to be tried: the page (the owner's
// paired device) and hive chat (the owner's key, in tmux) stay open while
// the bridge is killed -9 and restarted twice and the hub twice; after each,
// a mention that needs the owner's permission shows its request on both
// surfaces (the page within 3 s of the owner's key getting it), the page's
// Allow answers it, hive chat sees it answered, and every mention gets
// exactly one reply and, in the page, an answered receipt.
func TestWebAndChatDayOfUseWithRestarts(t *testing.T) {
	w := startWebTeam(t)
	a := w.newWebAgent(t)
	a.run(t).stop() // an agent that ran before: both surfaces know it
	w.pairBrowser(t)
	w.openChannel(t, "room")
	w.b.waitVisible(tid("agent-item") + fmt.Sprintf(`[data-agent=%q]`, a.pk))
	chat := startChat(t, w.cli.home, 110, 30, "room", "--profile", "owner")
	chat.waitText("#room", "● connected", "⚙ helper")
	owner := w.ownerFrames(t, a.pk)

	var mentions []string
	ask := func(what string) {
		t.Helper()
		chat.waitFor("no permission request before "+what, func(s string) bool { return !strings.Contains(s, "⚠ permission asked:") })
		mentions = append(mentions, w.askThroughPageAnd(t, a.pk, owner, what, func() {
			chat.waitText("⚠ permission asked:") // the same request, in hive chat
		}))
		chat.waitFor("hive chat sees the request answered "+what, func(s string) bool { return !strings.Contains(s, "⚠ permission asked:") })
	}
	b := a.run(t)
	ask("the first run")
	for i := 1; i <= 2; i++ {
		b.kill9()
		b = a.run(t)
		ask(fmt.Sprintf("bridge restart %d", i))
	}
	for i := 1; i <= 2; i++ {
		w.h.kill9()
		w.h = startWebHubAt(t, w.h.Data, w.h.addr)
		w.b.waitState("connected")
		chat.waitText("● connected")
		b.waitLines(t, "msg=reconnected", i)
		ask(fmt.Sprintf("hub restart %d", i))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	replies, err := w.memberClient(t, "owner").Query(ctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{a.pk}, Tags: nostr.TagMap{"h": {"room"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mentions {
		n := 0
		for _, r := range replies {
			if slices.ContainsFunc(r.Tags, func(tag nostr.Tag) bool { return len(tag) > 1 && tag[0] == "e" && tag[1] == m }) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("mention %s has %d replies of the agent, want 1", m, n)
		}
	}
	// what the owner sees: every mention answered, none left working by a
	// bridge killed after it replied
	w.b.waitUntil("every mention's receipt answered in the page", fmt.Sprintf(
		`document.querySelectorAll('[data-testid="receipt"][data-status="answered"]').length === %d && !document.querySelector('[data-testid="receipt"]:not([data-status="answered"])')`, len(mentions)))
	w.b.screenshot("day-end")
	w.b.noConsoleErrors("WebSocket connection to")
}
