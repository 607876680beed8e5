package test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// ownerAsks is the permission requests of an agent's frames to the owner's
// own key (which gets every frame, lease or not), by the turn they belong to.
type ownerAsks chan string

// ownerFrames follows the agent's frames to the owner's key with a client of
// its own (which reconnects by itself) and passes on the turn of each
// permission request.
func (w *webTeam) ownerFrames(t testing.TB, agent string) ownerAsks {
	t.Helper()
	c := w.memberClient(t, "owner")
	ck, err := nip44.GenerateConversationKey(agent, keyOf(t, profileOf(t, w.cli, "owner").Key).SecretHex)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sub, err := c.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.ObserverFrame}, Authors: []string{agent}, Tags: nostr.TagMap{"p": {w.owner}}})
	if err != nil {
		t.Fatal(err)
	}
	out := make(ownerAsks, 100)
	go func() {
		for ev := range sub.Events() {
			var f observer.Frame
			var msg struct{ Method string }
			if observer.OpenFrame(&ev, ck, &f) == nil && json.Unmarshal(f.Msg, &msg) == nil && msg.Method == "session/request_permission" {
				out <- f.Turn
			}
		}
	}()
	<-sub.EOSE()
	return out
}

// raised waits until the owner's key has the permission request of turn.
func (o ownerAsks) raised(t testing.TB, turn string) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case got := <-o:
			if got == turn {
				return
			}
		case <-deadline:
			t.Fatalf("the owner's own key got no permission request of turn %s within %s", turn, waitTimeout)
		}
	}
}

// askThroughPage mentions the agent with a request that needs the owner's
// permission; the page (a paired device) must show the request within 3 s
// of the owner's own key getting it, and its Allow must let the tool call
// go on: the agent's reply says so, in the mention's thread.
func (w *webTeam) askThroughPage(t testing.TB, agent string, owner ownerAsks, what string) {
	t.Helper()
	w.askThroughPageAnd(t, agent, owner, what, func() {})
}

// askThroughPageAnd is askThroughPage with also, once the page shows the
// request and before its Allow is clicked, shown (another surface's
// check); it returns the mention's id.
func (w *webTeam) askThroughPageAnd(t testing.TB, agent string, owner ownerAsks, what string, shown func()) string {
	t.Helper()
	request := tid("permission-request")
	w.b.waitUntil("no permission request shown before "+what, fmt.Sprintf(`!document.querySelector(%q)`, request))
	tail := w.tail(t, "owner", "room")
	id := w.send(t, "owner", "room", "@helper [[permission]] "+what, "--mention", "helper")
	owner.raised(t, id)
	if !w.b.within(3*time.Second, fmt.Sprintf(`!!document.querySelector(%q)`, request)) {
		w.b.screenshot("no-request-" + strings.ReplaceAll(what, " ", "-"))
		t.Fatalf("%s: the owner's key got the agent's permission request, the page (a paired device) shows none within 3 s", what)
	}
	w.b.screenshot("request-" + strings.ReplaceAll(what, " ", "-"))
	shown()
	w.b.click(request + ` [data-testid="permission-option"][data-option-id="allow"]`)
	reply := tail.until("the agent's reply "+what, func(r rowJSON) bool { return r.Author == agent && r.Op == "" && r.ReplyTo == id })
	if !strings.Contains(reply.Text, "permission: allow") {
		t.Fatalf("%s: the agent's reply %q, want permission: allow (the page's click answered the request)", what, reply.Text)
	}
	return id
}

// A browser paired before the bridge (re)started gets the agent's frames
// (spec/agents.md, "Devices watch by lease"): with the page open as the
// owner's paired device, the bridge starts after it, and the permission
// request of the owner's mention shows in the page within 3 s and is
// answered by a click; then again after the bridge is killed -9 and
// restarted, and after the hub is killed -9 and restarted.
func TestWebDeviceWatchesAcrossRestarts(t *testing.T) {
	w := startWebTeam(t)
	a := w.newWebAgent(t)
	a.run(t).stop() // an agent that ran before: the page knows it (its profile) while no bridge runs
	w.pairBrowser(t)
	w.openChannel(t, "room")
	w.b.waitVisible(tid("agent-item") + fmt.Sprintf(`[data-agent=%q]`, a.pk)) // the page watches it from now on
	owner := w.ownerFrames(t, a.pk)

	b := a.run(t)
	w.askThroughPage(t, a.pk, owner, "after the bridge started")

	b.kill9()
	b = a.run(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the restarted bridge's log:\n%s", b.logs())
		}
	})
	w.askThroughPage(t, a.pk, owner, "after the bridge was killed")

	w.h.kill9()
	w.h = startWebHubAt(t, w.h.Data, w.h.addr)
	w.b.waitState("connected")
	b.waitLines(t, "msg=reconnected", 1) // back on the restarted hub
	w.askThroughPage(t, a.pk, owner, "after the hub restarted")
	w.b.noConsoleErrors("WebSocket connection to")
}

// waitLines waits until the bridge has logged n lines with sub.
func (b *bridgeProc) waitLines(t testing.TB, sub string, n int) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for strings.Count(b.logs(), sub) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the bridge logged %q fewer than %d times within %s:\n%s", sub, n, waitTimeout, b.logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
