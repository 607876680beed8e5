package test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The browser as a member's device, end to end over the real binary: it
// pairs with a real `hive pair` and its SAS; opening a channel marks it read
// for the member's other device (`hive channel list` there shows 0 unread);
// another member's message arrives live; a message sent from the page is
// printed by the other member's `hive tail`, signed by the browser's own
// device key and shown as the owner; a thread opens and takes a reply.
func TestWebPairAndChat(t *testing.T) {
	w := startWebTeam(t)
	device := w.pairBrowser(t)
	if device == w.owner || len(device) != 64 {
		t.Fatalf("the browser's device key %q: want a key of its own", device)
	}
	w.openChannel(t, "lobby")

	// unread in room, then read from the browser
	w.send(t, "bob", "room", "first unread")
	w.send(t, "bob", "room", "second unread")
	w.b.waitUntil("room shows 2 unread", fmt.Sprintf(`document.querySelector(%q)?.dataset.unread === "2"`, channelItem("room")))
	if n := w.unread(t, "owner", "room"); n != 2 {
		t.Fatalf("hive channel list on the owner's other device: %d unread in room before the browser read it, want 2", n)
	}
	w.openChannel(t, "room")
	w.waitMessage(t, tid("timeline"), "second unread")
	deadline := time.Now().Add(waitTimeout)
	for w.unread(t, "owner", "room") != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("hive channel list on the owner's other device still shows %d unread in room after the browser read it", w.unread(t, "owner", "room"))
		}
		time.Sleep(200 * time.Millisecond)
	}

	// live from bob
	root := w.send(t, "bob", "room", "hello browser")
	if got := w.waitMessage(t, tid("timeline"), "hello browser"); got != root {
		t.Fatalf("the live message shows as %s, sent as %s", got, root)
	}

	// from the browser to bob's tail
	tail := w.tail(t, "bob", "room")
	w.b.typeInto(mainComposer, "hello from the browser\r")
	row := tail.next("hello from the browser")
	if row.Author != device {
		t.Fatalf("bob's tail shows the browser's message by %s, want the device key %s", row.Author, device)
	}
	if row.Name != "owner" {
		t.Fatalf("bob's tail names the browser's message's author %q, want the owner's name", row.Name)
	}
	ev, err := w.memberClient(t, "bob").Event(ctxT(t), row.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := ev.CheckSignature(); !ok || ev.PubKey != device {
		t.Fatalf("the browser's message: signature ok %v (%v), signed by %s, want the device key %s", ok, err, ev.PubKey, device)
	}
	if out := w.cli.ok("device", "list", "--json", "--profile", "owner"); !strings.Contains(out, device) || !strings.Contains(out, `"revoked":false`) {
		t.Fatalf("hive device list (the owner's attestations) does not list the browser's key %s as live:\n%s", device, out)
	}

	// a thread on bob's message
	w.b.do("hover bob's message", evalDo(fmt.Sprintf(`document.querySelector(%q).scrollIntoView()`, messageSel(root))))
	w.b.click(messageSel(root) + " " + tid("thread-open"))
	w.b.waitVisible(tid("thread-pane"))
	w.b.typeInto(tid("thread-pane")+" "+tid("composer"), "a reply in the thread\r")
	reply := tail.next("a reply in the thread")
	if reply.ReplyTo != root || reply.Author != device {
		t.Fatalf("the thread reply: reply_to %s author %s, want %s by %s", reply.ReplyTo, reply.Author, root, device)
	}
	w.waitMessage(t, tid("thread-pane"), "a reply in the thread")
	w.b.screenshot("chat")
	w.b.noConsoleErrors()
}
