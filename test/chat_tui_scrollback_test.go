package test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
)

// Scrollback: a channel of 150 messages, then 260 in one second (more than
// two pages) is paged from the hub with PgUp to its first message (the screen there shows them in order, none twice),
// and End jumps back to the newest. Then Ctrl-F finds in what is loaded:
// Enter shows the newest match with its count, Up the older one, Esc goes
// back to the newest rows.
func TestChatTUIScrollback(t *testing.T) {
	w := newChatWorld(t)
	bob := w.client(t, "bob")
	for i := range 150 { // older history: pages of the hub's
		if _, err := bob.Publish(ctxT(t), client.Message("general", fmt.Sprintf("early %03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	second := nostr.Now() + 20 // after the early ones (the hub takes events up to 15 min ahead)
	for i := range 260 {       // all in one second, ordered by their ms tags
		ev := client.Message("general", fmt.Sprintf("scroll %03d", i))
		ev.CreatedAt = second
		ev.Tags = append(ev.Tags, nostr.Tag{"ms", fmt.Sprint(i * 3)})
		if _, err := bob.Publish(ctxT(t), ev); err != nil {
			t.Fatal(err)
		}
	}
	alice := startChat(t, w.c.home, 80, 24, "general", "--profile", "alice")
	first := alice.waitText("● connected", "scroll 259")
	if shown := scrolled(first); len(shown) < 10 || !consecutive(shown) {
		t.Fatalf("the first screen shows a gap: %v\n%s", shown, first)
	}
	s := alice.waitFor("the channel's first message", func(s string) bool {
		if strings.Contains(s, "the beginning of #general") && strings.Contains(s, "early 000") {
			return true
		}
		alice.keys("PPage")
		return false
	})
	s = alice.waitText("▲ scrolled up · end jumps to the newest", "alice created the channel", "early 000")
	shown := scrolled(strings.ReplaceAll(s, "early ", "scroll "))
	if len(shown) < 5 || shown[0] != 0 || !consecutive(shown) {
		t.Fatalf("the top screen shows %v (a row doubled or missing):\n%s", shown, s)
	}
	alice.keys("End")
	alice.waitFor("the newest again", func(s string) bool {
		return strings.Contains(s, "scroll 259") && !strings.Contains(s, "scrolled up")
	})
	alice.keys("C-f")
	alice.keys("-l", "EARLY 00")
	alice.waitText("find: EARLY 00▏ · 10 matches · Enter jumps to the newest")
	alice.keys("Enter")
	s = alice.waitText("match 1 of 10 · Enter/↑ older", "early 009")
	if strings.Contains(s, "scroll 259") {
		t.Fatalf("the match did not scroll the view:\n%s", s)
	}
	alice.keys("Up")
	alice.waitText("match 2 of 10 · Enter/↑ older", "early 008")
	alice.keys("Escape")
	alice.waitFor("the newest after Esc", func(s string) bool {
		return strings.Contains(s, "scroll 259") && !strings.Contains(s, "find:") && !strings.Contains(s, "scrolled up")
	})
}

// scrolled are the numbers of the "scroll NNN" messages on a screen, in order.
func scrolled(screen string) []int {
	var out []int
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, "scroll "); i >= 0 && len(l) >= i+10 {
			if n, err := strconv.Atoi(l[i+7 : i+10]); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func consecutive(ns []int) bool {
	for i := 1; i < len(ns); i++ {
		if ns[i] != ns[i-1]+1 {
			return false
		}
	}
	return true
}
