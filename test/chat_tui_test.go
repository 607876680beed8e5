package test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Two members chat through real `hive chat` processes in tmux panes over a
// real `hive serve`: a mention completed with Tab lands as a p tag and
// shows as a mention badge in the other's sidebar, next-unread opens it,
// messages go both ways, another member's edit, reaction and delete show
// up live, a thread is replied to and shows its count, terminal escapes in
// a message (raw, or as markdown character references) are not passed to
// the terminal, markdown renders, the other member shows online until they
// quit, /quit restores the terminal.
func TestChatTUITwoMembers(t *testing.T) {
	w := newChatWorld(t)
	w.c.ok("channel", "create", "random", "--profile", "alice")
	alice := startChat(t, w.c.home, 100, 30, "random", "--profile", "alice")
	bob := startChat(t, w.c.home, 80, 24, "general", "--profile", "bob")
	alice.waitText("#random", "● connected", "alice [alice]", "# general")
	bob.waitText("#general", "● connected", "bob [bob]", "bob joined")

	bob.complete("al", "alice")
	bob.say("are you there?")
	bob.waitFor("the message stored (not the pending row)", func(s string) bool {
		return strings.Contains(s, "bob: @alice are you there?") && !strings.Contains(s, "sending…")
	})
	alicePK, _ := identity.ParsePublicKey(w.npub["alice"])
	if rs := w.history(t, "bob"); len(rs) != 3 || !slices.Equal(rs[2].Mentions, []string{alicePK}) {
		t.Fatalf("the completed @alice is not a p tag: %+v", rs)
	}
	// alice is in random: general shows one unread row, one mention
	alice.waitFor("a mention badge on general", func(s string) bool { return sideLine(s, "# general") == "# general @1 1" })
	alice.keys("M-a") // next unread, mentions first
	alice.waitText("#general", "new messages", "bob: @alice are you there?")
	alice.waitFor("general read", func(s string) bool { return sideLine(s, "# general") == "▌ general" })
	alice.waitFor("bob online in general", func(s string) bool { return sideLine(s, "● bob") == "● bob" })

	alice.say("hello bob, yes")
	bob.waitText("alice: hello bob, yes")
	bob.say("great, one question")
	alice.waitText("bob: great, one question")

	// another member's edit, reaction and delete, live
	rs := w.history(t, "bob")
	var bobFirst, aliceMsg string
	for _, r := range rs {
		switch r.Text {
		case "@alice are you there?", "nostr:" + w.npub["alice"] + " are you there?":
			bobFirst = r.ID
		case "hello bob, yes":
			aliceMsg = r.ID
		}
	}
	if bobFirst == "" || aliceMsg == "" {
		t.Fatalf("rows: %+v", rs)
	}
	w.c.ok("edit", bobFirst, "@alice are you there now?", "--profile", "bob")
	alice.waitText("bob: @alice are you there now? (edited)")
	w.c.ok("react", aliceMsg, "👍", "--profile", "bob")
	alice.waitText("👍 1")
	doomed := w.send(t, "bob", "a doomed message")
	alice.waitText("a doomed message")
	w.c.ok("delete", doomed.ID, "--profile", "bob")
	alice.waitFor("the deleted message gone", func(s string) bool {
		return !strings.Contains(s, "a doomed message") && strings.Contains(s, "great, one question")
	})

	// a thread: open it on bob's last message, reply, close: the count shows
	bob.say("thread root here")
	alice.waitText("thread root here")
	alice.say("/thread")
	alice.waitText("› thread: thread root here")
	alice.say("a reply in the thread")
	alice.keys("Escape")
	alice.waitText("↳ 1 reply")
	bob.waitText("↳ 1 reply, last", "· alice: a reply in the thread")

	// untrusted text: escapes and controls never reach the terminal
	w.publish(t, "bob", nostr.Event{Kind: kinds.Message, Content: "\x1b]2;pwned\x07\x1b[2J\x1b[31mplain\x1b[0m text\x07", Tags: nostr.Tags{{"h", "general"}}})
	s := alice.waitFor("the message cleaned", func(s string) bool {
		return slices.ContainsFunc(strings.Split(s, "\n"), func(l string) bool {
			_, text, _ := strings.Cut(l, "│")
			return strings.TrimSpace(text) == "plain text" // grouped under bob; nothing of the escapes left
		})
	})
	if !strings.Contains(s, "hello bob, yes") {
		t.Fatalf("an escape in a message cleared the screen:\n%s", s)
	}
	w.publish(t, "bob", nostr.Event{Kind: kinds.Message, Content: "**loud** &#27;]2;pwned2&#7;&#x1b;[2Jafter", Tags: nostr.Tags{{"h", "general"}}})
	s = alice.waitText("loud ]2;pwned2[2Jafter")
	if strings.Contains(s, "**loud**") || !strings.Contains(s, "hello bob, yes") {
		t.Fatalf("markdown not rendered, or the screen cleared:\n%s", s)
	}
	if title := alice.tmux("display-message", "-p", "-t", "chat", "#{pane_title}"); strings.Contains(title, "pwned") {
		t.Fatalf("a message set the terminal title: %q", title)
	}

	bob.say("/quit") // offline: gone from alice's sidebar
	bob.waitText("CHAT-EXITED 0")
	alice.waitFor("bob offline", func(s string) bool { return sideLine(s, "● bob") == "" && sideLine(s, "● alice") == "● alice" })

	alice.say("/quit")
	alice.waitText("CHAT-EXITED 0")
	if alt := strings.TrimSpace(alice.tmux("display-message", "-p", "-t", "chat", "#{alternate_on}")); alt != "0" {
		t.Fatalf("after /quit the terminal is still in the alternate screen (%s)", alt)
	}
}

// sideLine is the sidebar line of the screen that starts with prefix (after
// the current channel's marker), with its spaces squeezed.
func sideLine(screen, prefix string) string {
	for _, l := range strings.Split(screen, "\n") {
		side, _, _ := strings.Cut(l, "│")
		f := strings.Join(strings.Fields(side), " ")
		if strings.HasPrefix(f, prefix) || strings.HasPrefix(f, "▌"+prefix[1:]) {
			return f
		}
	}
	return ""
}

// The hub is killed with -9 and started again: hive chat shows it
// reconnecting, a message sent meanwhile waits as pending and is stored once
// after the restart, the chat catches up with what came after, and nothing
// shows twice.
func TestChatTUIHubRestart(t *testing.T) {
	w := newChatWorld(t)
	alice := startChat(t, w.c.home, 80, 24, "general", "--profile", "alice")
	alice.waitText("● connected", "bob joined")
	w.send(t, "bob", "before the cut")
	alice.waitText("bob: before the cut")

	w.hub.kill9()
	alice.waitFor("reconnecting with the next try", func(s string) bool {
		return regexp.MustCompile(`◌ reconnecting: next try in [0-9]+s`).MatchString(s)
	})
	alice.say("sent while down")
	alice.waitText("sent while down (sending…)", "1 sending")

	w.hub = startProc(t, w.data, w.hub.addr)
	s := alice.waitFor("the pending message stored", func(s string) bool {
		return strings.Contains(s, "● connected") && strings.Contains(s, "alice: sent while down") && !strings.Contains(s, "sending")
	})
	w.send(t, "bob", "after the restart")
	s = alice.waitText("bob: after the restart")
	for _, text := range []string{"before the cut", "sent while down", "after the restart", "bob joined"} {
		if n := strings.Count(s, text); n != 1 {
			t.Fatalf("%q shows %d times after the restart:\n%s", text, n, s)
		}
	}
	n := 0
	for _, r := range w.history(t, "bob") {
		if r.Text == "sent while down" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the hub stored the pending message %d times", n)
	}
}

// SIGTERM ends hive chat with the terminal restored (out of the alternate
// screen, exit 0).
func TestChatTUISigtermRestoresTerminal(t *testing.T) {
	w := newChatWorld(t)
	alice := startChat(t, w.c.home, 80, 24, "general", "--profile", "alice")
	alice.waitText("● connected")
	shell := strings.TrimSpace(alice.tmux("display-message", "-p", "-t", "chat", "#{pane_pid}"))
	b, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil || len(strings.Fields(string(b))) != 1 {
		t.Fatalf("the chat process under the pane's shell %s: %q %v", shell, b, err)
	}
	pid, _ := strconv.Atoi(strings.Fields(string(b))[0])
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	alice.waitText("CHAT-EXITED 0")
	if alt := strings.TrimSpace(alice.tmux("display-message", "-p", "-t", "chat", "#{alternate_on}")); alt != "0" {
		t.Fatalf("after SIGTERM the terminal is still in the alternate screen (%s)", alt)
	}
}
