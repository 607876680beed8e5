package chatui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

var (
	enter    = tea.KeyMsg{Type: tea.KeyEnter}
	altEnter = tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
	tab      = tea.KeyMsg{Type: tea.KeyTab}
	up       = tea.KeyMsg{Type: tea.KeyUp}
)

func text(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// The composer: Alt-Enter is a new line, Enter sends both lines as one
// message (pending until the hub's OK, then a row); a message the hub
// refuses shows the hub's reason on one line and comes back to the
// composer; Up on an empty composer edits the last own message.
func TestComposer(t *testing.T) {
	w := newWorld(t)
	tm := inGeneral(t, w.alice, Options{})
	tm.Type("first line")
	tm.Send(altEnter)
	tm.Type("second")
	waitOut(t, tm, "> first line", "> second")
	tm.Send(enter)
	sent := stored(t, w.bob, kinds.Message, w.alice.PublicKey(), func(e nostr.Event) bool { return e.Content == "first line\nsecond" })
	waitOut(t, tm, "alice: first line", "second")

	tm.Send(text(strings.Repeat("x", 120)))
	tm.Send(enter)
	waitOut(t, tm, "✗ not sent: invalid: content longer than 100 bytes", "> xxxxxxxx")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU}) // textarea: delete to the line start
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})

	tm.Send(up)
	waitOut(t, tm, "editing your message")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlK}) // the second line
	tm.Type("edited text")
	tm.Send(enter)
	stored(t, w.bob, kinds.Edit, w.alice.PublicKey(), func(e nostr.Event) bool {
		return strings.Contains(e.Content, "edited text") && e.Tags.FindWithValue("e", sent.ID) != nil
	})
	waitOut(t, tm, "(edited)")
}

// @ completion: Tab completes a member's name, Tab again the next match;
// the message sent p-tags the completed member.
func TestMentionCompletion(t *testing.T) {
	w := newWorld(t)
	tm := inGeneral(t, w.alice, Options{})
	tm.Type("hi @b")
	tm.Send(tab)
	waitOut(t, tm, "> hi @bob")
	tm.Type("how are you")
	tm.Send(enter)
	ev := stored(t, w.bob, kinds.Message, w.alice.PublicKey(), func(e nostr.Event) bool { return e.Content == "hi @bob how are you" })
	if ev.Tags.FindWithValue("p", w.bob.PublicKey()) == nil {
		t.Fatalf("the completed mention is not a p tag: %v", ev.Tags)
	}
	tm.Type("/re")
	tm.Send(tab)
	waitOut(t, tm, "> /react")
	tm.Send(tab) // the only match: nothing else
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	tm.Type("@zz")
	tm.Send(tab) // no one: left as typed
	waitOut(t, tm, "> @zz")
}

// Slash commands make the CLI's calls, and say what is wrong on one line.
func TestSlashCommands(t *testing.T) {
	w := newWorld(t)
	tm := inGeneral(t, w.alice, Options{})
	tm.Type("react to me")
	tm.Send(enter)
	msg := stored(t, w.bob, kinds.Message, w.alice.PublicKey(), func(e nostr.Event) bool { return e.Content == "react to me" })
	waitOut(t, tm, "alice: react to me")

	tm.Send(text("/react 👍"))
	tm.Send(enter)
	stored(t, w.bob, kinds.Reaction, w.alice.PublicKey(), func(e nostr.Event) bool { return e.Content == "👍" && e.Tags.FindWithValue("e", msg.ID) != nil })
	waitOut(t, tm, "👍 1")
	tm.Type("/edit changed")
	tm.Send(enter)
	stored(t, w.bob, kinds.Edit, w.alice.PublicKey(), func(e nostr.Event) bool { return e.Content == "changed" })
	waitOut(t, tm, "alice: changed (edited)")
	tm.Type("/delete")
	tm.Send(enter)
	stored(t, w.bob, kinds.DeleteInChannel, w.alice.PublicKey(), func(e nostr.Event) bool { return e.Tags.FindWithValue("e", msg.ID) != nil })
	waitOut(t, tm, "deleted")

	for _, c := range []struct{ line, want string }{
		{"/nosuch", "✗ no command /nosuch: /help lists them"},
		{"/join", "✗ usage: /join CHANNEL"},
		{"/join nowhere", `✗ no channel "nowhere" that you can see (see ` + "`hive channel list`)"},
		{"/dm alice", "✗ that is your own key: a DM needs another participant"},
		{"/dm nobody", `✗ no one named "nobody"`},
	} {
		run(t, tm, c.line, c.want)
	}
	run(t, tm, "/dm bob", "#bob", "DMs")
	run(t, tm, "/join random", "#random")
	run(t, tm, "/who", "#random: 1 members: alice (owner)")
	tm.Type("/quit")
	tm.Send(enter)
	tm.WaitFinished(t)
}

// The key map: a chat-keys.toml binding replaces the default; the help
// overlay lists the keys as bound, and the commands.
func TestKeyMapAndHelp(t *testing.T) {
	w := newWorld(t)
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, KeysFile), []byte("[keys]\nnext_channel = [\"ctrl+b\"]\n"), 0o600)
	km, err := LoadKeys(home)
	if err != nil {
		t.Fatal(err)
	}
	tm := inGeneral(t, w.alice, Options{Keys: km})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlN}) // the default, now unbound
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlB})
	waitOut(t, tm, "#random")
	tm.Type("?")
	waitOut(t, tm, "ctrl+b", "next channel", "Esc, ? or q closes this help")
	tm.Send(tea.KeyMsg{Type: tea.KeyPgDown}) // the commands, below the keys
	waitOut(t, tm, "/react EMOJI", "/steer TEXT", "/create NAME [--private]")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Type("/quit")
	tm.Send(enter)
	final := tm.FinalModel(t).(*Model)
	if final.s.Current() != "random" || (final.help != nil) {
		t.Fatalf("after ctrl+b and Esc: channel %q, help %v", final.s.Current(), (final.help != nil))
	}
	if !slices.Contains(final.keys["next_channel"].Keys(), "ctrl+b") {
		t.Fatal("key map lost the binding")
	}
}

// /create makes a channel (private with --private) and opens it; a second
// /create of the name says how to go on; /search lists what matches, with
// the hub's reason for a bad query; /steer and /cancel without an agent
// say why.
func TestSlashCreateSearchSteer(t *testing.T) {
	w := newWorld(t)
	tm := inGeneral(t, w.alice, Options{})
	run(t, tm, "/create Ops Room --private", "created #Ops Room (private)", "#Ops Room")
	ev := stored(t, w.alice, kinds.CreateGroup, w.alice.PublicKey(), func(e nostr.Event) bool { return e.Tags.FindWithValue("h", "ops-room") != nil })
	if ev.Tags.FindWithValue("visibility", "private") == nil {
		t.Fatalf("--private not kept: %v", ev.Tags)
	}
	run(t, tm, "/create Ops Room", "✗ duplicate: channel ops-room already exists: pick another name")

	run(t, tm, "/join general", "joined #general") // back to general (already in it: opened)
	tm.Type("the quick brown fox")
	tm.Send(enter)
	stored(t, w.bob, kinds.Message, w.alice.PublicKey(), func(e nostr.Event) bool { return e.Content == "the quick brown fox" })
	run(t, tm, "/search brown", `1 results for "brown"`, "search: brown", "#general alice: the quick [brown] fox")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	run(t, tm, `/search "unclosed`, "✗ invalid: search:")

	run(t, tm, "/steer go left", "✗ no agent of yours to steer (only an agent's owner steers and cancels it)")
	run(t, tm, "/cancel", "✗ no agent of yours to cancel")
}

// The mouse: a click on a channel in the sidebar opens it; the wheel
// scrolls the timeline up (the jump-to-bottom line shows) and End comes
// back.
func TestMouse(t *testing.T) {
	w := newWorld(t)
	for i := range 60 {
		if _, err := w.bob.Publish(ctxT(t), client.Message("general", fmt.Sprintf("wheel %02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	tm := chatAs(t, w.alice, Options{Channel: "general"})
	waitOut(t, tm, "#general", "● connected", "wheel 59")
	for range 5 {
		tm.Send(tea.MouseMsg{X: 30, Y: 5, Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	}
	waitOut(t, tm, "▲ scrolled up · end jumps to the newest")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnd})
	tm.Send(tea.MouseMsg{X: 3, Y: 2, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}) // "# random", under "Channels" and "general"
	waitOut(t, tm, "#random")
	tm.Type("/quit")
	tm.Send(enter)
	if final := tm.FinalModel(t).(*Model); final.s.Current() != "random" || !final.timeline.AtBottom() {
		t.Fatalf("after the click: channel %q, at the bottom %v", final.s.Current(), final.timeline.AtBottom())
	}
}

// What a person types right after /create, before the new channel has
// opened, goes to the new channel's composer (not into a draft of the one
// they left), and the "created" notice shows with the new channel open.
func TestTypingWhileCreateOpens(t *testing.T) {
	w := newWorld(t)
	tm := inGeneral(t, w.alice, Options{})
	tm.Type("/create Plans")
	tm.Send(enter)
	tm.Type("first words")
	waitOut(t, tm, "created #Plans (open)", "#Plans", "> first words")
	tm.Send(enter)
	stored(t, w.bob, kinds.Message, w.alice.PublicKey(), func(e nostr.Event) bool {
		return e.Content == "first words" && e.Tags.FindWithValue("h", "plans") != nil
	})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlN}) // back to general (after Plans in the sidebar): no draft left there
	waitOut(t, tm, "#general")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	if final := tm.FinalModel(t).(*Model); final.s.Current() != "general" || final.composer.Value() != "" {
		t.Fatalf("back in %q, the composer holds %q", final.s.Current(), final.composer.Value())
	}
}
