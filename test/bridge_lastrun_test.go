package test

import (
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/nbd-wtf/go-nostr"
)

// Issue 30: a bridge killed -9 in the middle of a turn comes back; the dead
// run's turn never got its stop reason, and nothing of the new run names
// it again (here the owner's steer queued as a prompt: the new run does not
// run it again; a batch of caught-up mentions named by another of them is
// the same), so every watcher (the page, hive chat's agent pane, hive agent
// watch) kept showing it "working". The bridge that starts again says that
// the turns of its last run ended.
func TestBridgeRestartEndsTheLastRunsTurns(t *testing.T) {
	e, _ := newLiveEnv(t)
	fw := e.watchFrames(t)
	b := e.start(t)
	m0, _ := e.ask(t, b, "open the session", 20*time.Second)
	tr := observer.NewTranscript()
	session := ""
	for _, f := range fw.until(20*time.Second, func(f observer.Frame) bool { return f.Turn == m0.ID && f.Session != "" }) {
		tr.Apply(f)
		session = f.Session
	}
	e.control(t, observer.Control{V: 1, Type: observer.CtlSteer, Session: session, Text: "[[slow:20s]] steered, queued as the next prompt"})
	steer := ""
	for _, f := range fw.until(20*time.Second, func(f observer.Frame) bool {
		return strings.HasPrefix(f.Turn, "steer-") && method(f) == "session/prompt"
	}) {
		tr.Apply(f)
		steer = f.Turn
	}
	e.waitStateTurn(t, steer, b) // recorded in the background, as the rest of the state
	b.kill9()
	b2 := e.start(t)
	timeout := time.After(20 * time.Second)
	for v := tr.Turn(steer); v.Stop == ""; {
		select {
		case f, ok := <-fw.frames:
			if !ok {
				t.Fatalf("frame watch closed: %v", fw.err)
			}
			tr.Apply(f)
		case <-timeout:
			t.Fatalf("the dead run's turn %s is still in flight for a watcher: %+v; bridge log:\n%s", steer, tr.InFlight(), b2.logs())
		}
	}
	if v := tr.Turn(steer); v.Stop != observer.StopBridgeRestarted || len(tr.InFlight()) != 0 {
		t.Fatalf("the dead run's turn stopped %q; in flight %+v", v.Stop, tr.InFlight())
	}
	m1 := e.mention(t, e.a, e.alice, "room", "after the restart")
	if r := e.waitReply(t, "room", m1.ID, 20*time.Second, b2); r.Content != "heard 1: after the restart" {
		t.Fatalf("the next mention's reply %q", r.Content)
	}
}

// Issue 30: the answer was posted just before the bridge died, and its
// answered receipt never reached the hub (here a proxy drops it, as kill -9
// a moment later would): the mention's newest receipt said "working"
// for good, and the page and hive agent list showed a turn that was over.
// The bridge that starts again finishes the receipt of every turn of its
// last run whose reply the hub holds: answered, naming the reply.
func TestBridgeRestartFinishesAnsweredReceipt(t *testing.T) {
	e, p := proxiedEnv(t)
	p.dropEvents(func(ev *nostr.Event) bool {
		return ev.Kind == 40010 && ev.Tags.GetFirst([]string{"status", "answered"}) != nil
	})
	b := e.start(t)
	m, reply := e.ask(t, b, "[[slow:1s]] answered just before the bridge dies", 20*time.Second)
	e.waitStatus(t, e.agent.pk, m.ID, "working", b) // what the page and hive agent list showed for good

	b.kill9()
	p.dropEvents(nil)
	b2 := e.start(t)
	rs := e.waitStatus(t, e.agent.pk, m.ID, "answered "+reply.ID, b2)
	if e.repliesTo(t, "room", m.ID) != 1 {
		t.Fatalf("the mention was answered again after the restart: %v", rs)
	}
}

// waitStatus waits until agent's newest receipt on id starts with want
// (receiptsOf's form) and returns them all.
func (e *bridgeEnv) waitStatus(t testing.TB, agent, id, want string, b *bridgeProc) []string {
	t.Helper()
	var rs []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if rs = e.receiptsOf(t, agent, id); len(rs) > 0 && strings.HasPrefix(rs[len(rs)-1], want) {
			return rs
		}
	}
	t.Fatalf("the newest receipt from %s on %s is not %q: %v; bridge log:\n%s", agent[:8], id, want, rs, b.logs())
	return nil
}
