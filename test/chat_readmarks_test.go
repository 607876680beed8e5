package test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
)

// markLatency is how soon a read mark written on one of the member's keys
// shows on the member's other surfaces (spec/channels.md, "Read state":
// reading on one device clears the unread count on the others at once).
const markLatency = time.Second

// markHeard follows the member's read positions from c (a key of the
// member) and hands each position of context as it is stored, with when it
// came, the first one stored after a given time: the signal the other
// surfaces are timed from.
func markHeard(t *testing.T, c *client.Client) (wait func(context string, after time.Time) time.Time) {
	t.Helper()
	type mark struct {
		context string
		at      time.Time
	}
	heard := make(chan mark, 64)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	up := make(chan struct{})
	go func() {
		f := nostr.Filter{Kinds: []int{30078}, Since: func() *nostr.Timestamp { n := nostr.Now() - 5; return &n }()}
		sub, err := c.Subscribe(ctx, f)
		close(up)
		if err != nil {
			return
		}
		c.FollowSub(ctx, sub, func(ev nostr.Event) (bool, error) {
			if context, _, err := c.ParseReadState(ev); err == nil {
				heard <- mark{context, time.Now()}
			}
			return false, nil
		})
	}()
	<-up // the REQ is on the wire (Subscribe returns once the hub answered it)
	return func(context string, after time.Time) time.Time {
		t.Helper()
		deadline := time.After(waitTimeout)
		for {
			select {
			case m := <-heard:
				if m.context == context && !m.at.Before(after) {
					return m.at
				}
			case <-deadline:
				t.Fatalf("no read mark of %s stored within %s", context, waitTimeout)
			}
		}
	}
}

// dropsWithin waits until the pane's screen satisfies ok and fails unless
// that happened within markLatency of since.
func (p *tmuxPane) dropsWithin(what string, since time.Time, ok func(screen string) bool) {
	p.t.Helper()
	limit := 5 * time.Second // long enough to tell late from never
	for {
		s := p.screen()
		if ok(s) {
			took := time.Since(since)
			p.t.Logf("%s: %s after the mark was stored", what, took.Round(time.Millisecond))
			if took > markLatency {
				p.t.Fatalf("%s took %s after the mark was stored, want at most %s", what, took.Round(time.Millisecond), markLatency)
			}
			return
		}
		if time.Since(since) > limit {
			p.t.Fatalf("%s: not within %s of the mark being stored; the screen is\n%s", what, limit, s)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// Issue 31 item 3, acceptance: the member reads a channel in the browser (a
// paired device of the member); `hive chat` on the member's own key drops
// that channel's unread count within 1 s, and opening it shows no
// new-messages divider; the other way round, `hive chat` reads a channel
// and the page drops its unread count within 1 s and shows no divider when
// it opens it; and with the channel open in `hive chat` while its terminal
// has lost the focus (nothing marked there), its divider and count go
// within 1 s of the browser reading it.
func TestReadMarksLiveBrowserAndChat(t *testing.T) {
	w := startWebTeam(t)
	w.pairBrowser(t)
	w.openChannel(t, "lobby")
	heard := markHeard(t, w.memberClient(t, "owner"))
	chat := startChat(t, w.cli.home, 100, 30, "lobby", "--profile", "owner")
	chat.waitText("#lobby", "● connected")

	for _, text := range []string{"one", "two", "three"} {
		w.send(t, "bob", "room", text)
	}
	chat.waitFor("3 unread in room", func(s string) bool { return sideLine(s, "# room") == "# room 3" })
	w.b.waitUntil("room shows 3 unread", fmt.Sprintf(`document.querySelector(%q)?.dataset.unread === "3"`, channelItem("room")))

	// read in the browser: the terminal drops the count
	before := time.Now()
	w.openChannel(t, "room")
	at := heard("room", before)
	chat.dropsWithin("the terminal's room count drops", at, func(s string) bool { return sideLine(s, "# room") == "# room" })
	chat.keys("C-n") // lobby -> room
	s := chat.waitText("#room", "bob: one")
	if strings.Contains(s, "new messages") {
		t.Fatalf("room, read in the browser, opens in the terminal with a new-messages divider:\n%s", s)
	}

	// read in the terminal: the page drops the count
	for _, text := range []string{"four", "five"} {
		w.send(t, "bob", "lobby", text)
	}
	chat.waitFor("2 unread in lobby", func(s string) bool { return sideLine(s, "# lobby") == "# lobby 2" })
	w.b.waitUntil("lobby shows 2 unread", fmt.Sprintf(`document.querySelector(%q)?.dataset.unread === "2"`, channelItem("lobby")))
	before = time.Now()
	chat.keys("C-p") // room -> lobby: the terminal reads it
	chat.waitText("#lobby", "five")
	at = heard("lobby", before)
	w.b.waitUntil("the page's lobby count drops", fmt.Sprintf(`document.querySelector(%q)?.dataset.unread === "0"`, channelItem("lobby")))
	if took := time.Since(at); took > markLatency {
		t.Fatalf("the page's lobby count dropped %s after the terminal's mark was stored, want at most %s", took.Round(time.Millisecond), markLatency)
	} else {
		t.Logf("the page's lobby count drops: %s after the mark was stored", took.Round(time.Millisecond))
	}
	w.openChannel(t, "lobby")
	w.waitMessage(t, tid("timeline"), "five")
	if n := w.b.count(tid("new-messages")); n != 0 {
		w.b.screenshot("divider")
		t.Fatalf("lobby, read in the terminal, opens in the page with a new-messages divider")
	}

	// the terminal's focus is elsewhere (it marks nothing) and room opens
	// there with a divider over two new rows; the browser reads room: the
	// terminal drops the divider and the count within 1 s
	bob := w.memberClient(t, "bob")
	for _, text := range []string{"six", "seven"} {
		ev := client.Message("room", text)
		ev.CreatedAt = nostr.Now() + 1 // after the position the browser wrote (seconds)
		if _, err := bob.Publish(ctxT(t), ev); err != nil {
			t.Fatal(err)
		}
	}
	w.b.waitUntil("room shows 2 unread", fmt.Sprintf(`document.querySelector(%q)?.dataset.unread === "2"`, channelItem("room")))
	chat.waitFor("2 unread in room", func(s string) bool { return sideLine(s, "# room") == "# room 2" })
	chat.blur()
	chat.keys("C-n") // lobby -> room, unseen
	chat.waitFor("room open with a divider and 2 unread", func(s string) bool {
		return strings.Contains(s, "new messages") && strings.Contains(s, "seven") && sideLine(s, "# room") == "▌ room 2"
	})
	before = time.Now()
	w.openChannel(t, "room")
	at = heard("room", before)
	chat.dropsWithin("room read in the browser: the open room's divider and count drop", at, func(s string) bool {
		return !strings.Contains(s, "new messages") && sideLine(s, "# room") == "▌ room"
	})
}

// Issue 31 item 3, acceptance, `hive chat` ↔ `hive chat`: the member runs
// `hive chat` on its own key and on a device paired by the real hive pair /
// hive join; reading a channel in one drops its unread count in the other
// within 1 s, both ways, and opening it there shows no divider.
func TestReadMarksLiveChatAndChat(t *testing.T) {
	h := startPairingHub(t)
	bob := h.withBob(t, "room", "lobby")
	laptop, join := pairCLI(t, h)
	bobC, err := dialProfile(ctxT(t), t, profileOf(t, bob, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bobC.Close)
	var last nostr.Timestamp
	send := func(text string) { // a second after the last: a read position is in seconds
		ev := client.Message("room", text)
		ev.CreatedAt = max(nostr.Now(), last+1)
		stored, err := bobC.Publish(ctxT(t), ev)
		if err != nil {
			t.Fatal(err)
		}
		last = stored.CreatedAt
	}
	heard := markHeard(t, h.ownerClient(t))

	owner := startChat(t, h.owner.home, 100, 30, "lobby", "--profile", "owner")
	dev := startChat(t, laptop.home, 100, 30, "lobby", "--profile", join["profile"].(string))
	owner.waitText("#lobby", "● connected")
	dev.waitText("#lobby", "● connected")
	for i, pair := range []struct {
		reader, other *tmuxPane
		who           string
	}{{dev, owner, "the device"}, {owner, dev, "the owner"}} {
		text := fmt.Sprintf("round %d", i)
		send(text + " a")
		send(text + " b")
		for _, p := range []*tmuxPane{pair.reader, pair.other} {
			p.waitFor("2 unread in room", func(s string) bool { return sideLine(s, "# room") == "# room 2" })
		}
		before := time.Now()
		pair.reader.keys("C-n") // lobby -> room: read there
		pair.reader.waitText("#room", text+" b")
		at := heard("room", before)
		pair.other.dropsWithin("room read by "+pair.who+": the other chat's count drops", at, func(s string) bool { return sideLine(s, "# room") == "# room" })
		pair.other.keys("C-n")
		s := pair.other.waitText("#room", text+" b")
		if strings.Contains(s, "new messages") {
			t.Fatalf("room, read by %s, opens in the other chat with a new-messages divider:\n%s", pair.who, s)
		}
		pair.reader.keys("C-p")
		pair.other.keys("C-p")
		pair.reader.waitText("#lobby")
		pair.other.waitText("#lobby")
	}
}
