package test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Issue 30 item 1's second point: the hub closes the bridge's live
// subscription to its channels (CLOSED), and its subscriptions again are
// lost too: the bridge notices, hive who says it does not hear mentions
// and why, and once the hub takes its subscription again it hears them
// again (a mention sent meanwhile is answered) and hive who says so.
func TestBridgeNoticesClosedSubscription(t *testing.T) {
	e, p, b := deafEnv(t)
	p.swallowReqs(feedReq)
	if n := p.closeReqs(feedReq, "error: closed by the test"); n != 1 {
		t.Fatalf("%d live subscriptions of the bridge closed, want 1", n)
	}
	e.waitWho(t, b, "deaf", func(s string) bool {
		return regexp.MustCompile(`^idle, queue 0, not hearing mentions since \d\d:\d\d:\d\d \(the hub closed it: error: closed by the test; subscribing again\)$`).MatchString(s)
	})
	e.recovers(t, p, b)
}

// A reconnect that lost the live subscription (the hub never got it
// again): the bridge notices within seconds of the reconnect, says so,
// and hears mentions again once its subscription gets through.
func TestBridgeNoticesSubscriptionLostInReconnect(t *testing.T) {
	e, p, b := deafEnv(t)
	p.swallowReqs(feedReq)
	if p.kick() == 0 {
		t.Fatal("no connection through the proxy")
	}
	e.waitWho(t, b, "deaf", func(s string) bool {
		return strings.Contains(s, "not hearing mentions since") && strings.Contains(s, "(the agent's own status did not come back on it within 5s; subscribing again)")
	})
	e.recovers(t, p, b)
}

// deafEnv is a bridge that reaches the hub through a proxy, with one
// mention answered.
func deafEnv(t *testing.T) (*bridgeEnv, *wsProxy, *bridgeProc) {
	e, p := proxiedEnv(t)
	b := e.start(t)
	e.ask(t, b, "before", 20*time.Second)
	e.waitWho(t, b, "before", func(s string) bool { return s == "idle, queue 0" })
	return e, p, b
}

// recovers lets the bridge's subscriptions through again: a mention sent
// while it was deaf is answered, and hive who no longer says it is deaf.
func (e *bridgeEnv) recovers(t *testing.T, p *wsProxy, b *bridgeProc) {
	t.Helper()
	m := e.mention(t, e.a, e.alice, "room", "sent while the bridge was deaf")
	p.swallowReqs(nil)
	if r := e.waitReply(t, "room", m.ID, 40*time.Second, b); r.Content != "heard 1: sent while the bridge was deaf" {
		t.Fatalf("reply %q", r.Content)
	}
	e.waitWho(t, b, "after", func(s string) bool { return s == "idle, queue 0" })
	if !strings.Contains(b.logs(), "the live subscription delivers again") {
		t.Fatalf("the bridge's log does not say it hears again:\n%s", b.logs())
	}
}

// waitWho waits until the agent's STATE in `hive who room` (as bob) is
// what ok accepts.
func (e *bridgeEnv) waitWho(t *testing.T, b *bridgeProc, what string, ok func(string) bool) {
	t.Helper()
	key := filepath.Join(e.dir, "bob.key")
	if _, err := os.Stat(key); err != nil {
		key = e.saveKey(t, "bob", e.bob)
	}
	columns := regexp.MustCompile(`\s{2,}`)
	got := ""
	for deadline := time.Now().Add(40 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		out := hiveCmd(t, "who", "room", "--listen", "200ms", "--hub", e.h.URL, "--key", key)
		for _, l := range strings.Split(out, "\n") {
			if f := columns.Split(l, -1); strings.HasPrefix(l, "helper ") && len(f) == 4 {
				got = f[3]
			}
		}
		if ok(got) {
			return
		}
	}
	t.Fatalf("hive who %s: the agent's state is %q; bridge log:\n%s", what, got, b.logs())
}
