package test

import (
	"fmt"
	"testing"
)

// kill -9 of the hub under an open page: the page shows it reconnecting,
// comes back by itself when the hub restarts on the same data, catches up
// with what was sent while it was away, and shows no message twice.
func TestWebReconnectAfterKill9(t *testing.T) {
	w := startWebTeam(t)
	w.signInAsOwner(t)
	w.openChannel(t, "room")
	before := w.send(t, "bob", "room", "before the crash")
	w.waitMessage(t, tid("timeline"), "before the crash")

	w.h.kill9()
	w.b.waitState("reconnecting", "connecting")
	w.h = startWebHubAt(t, w.h.Data, w.h.addr)
	after := w.send(t, "bob", "room", "sent after the restart")
	w.b.waitState("connected")
	w.waitMessage(t, tid("timeline"), "sent after the restart")
	live := w.send(t, "bob", "room", "live after the reconnect")
	w.waitMessage(t, tid("timeline"), "live after the reconnect")

	for _, id := range []string{before, after, live} {
		if n := w.b.count(tid("timeline") + " " + messageSel(id)); n != 1 {
			t.Errorf("message %s shows %d times after the reconnect, want once", id, n)
		}
	}
	ids := evalAs[[]string](w.b, fmt.Sprintf(`[...document.querySelectorAll(%q)].map(m => m.dataset.eventId)`, tid("timeline")+" "+tid("message")))
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("message %s shows twice in the timeline", id)
		}
		seen[id] = true
	}
	w.b.screenshot("reconnected")
	w.b.noConsoleErrors("WebSocket connection to")
}
