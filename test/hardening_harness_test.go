package test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// procHub is a `hive serve` process with its admin key and data directory,
// and the flags naming its log when it is not the SQLite one in data.
type procHub struct {
	*hubProc
	data  string
	admin key
	store []string
}

func startHubProc(t *testing.T) *procHub { return startHubProcOn(t, nil) }

// startHubProcOn is startHubProc over the log store names (nil: SQLite).
func startHubProcOn(t *testing.T, store []string) *procHub {
	t.Helper()
	h := &procHub{data: filepath.Join(t.TempDir(), "hub"), admin: newKey(t), store: store}
	h.hubProc = startProc(t, h.data, freeAddr(t), h.serveArgs()...)
	return h
}

func (h *procHub) serveArgs() []string { return append([]string{"--admin", h.admin.pk}, h.store...) }

// restart kills the hub with SIGKILL and starts it again on the same data.
func (h *procHub) restart(t *testing.T) {
	t.Helper()
	h.kill9()
	h.hubProc = startProc(t, h.data, h.addr, h.serveArgs()...)
}

func (h *procHub) as(t *testing.T, k key, extra ...nostr.Tag) *raw {
	t.Helper()
	r := dialRaw(t, h.URL)
	if ok, msg := r.authWith(k, h.URL, 0, extra...); !ok {
		t.Fatalf("AUTH as %s refused: %s", k.pk[:8], msg)
	}
	return r
}

// verifyReplay runs `hive admin replay --verify` on the live data directory
// and fails the test unless it reports 0 differences.
func (h *procHub) verifyReplay(t *testing.T) {
	t.Helper()
	out, code := hiveExit(t, append([]string{"admin", "replay", "--verify", "--data", h.data, "--admin", h.admin.pk, "--json"}, h.store...)...)
	var res struct {
		Differences []string `json:"differences"`
		OK          bool     `json:"ok"`
	}
	if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &res); err != nil || code != 0 || !res.OK {
		t.Fatalf("replay --verify: exit %d, %d differences\n%s", code, len(res.Differences), out)
	}
}

// writeTeam: alice owns open "pub", private "priv", the DM "dm-ab" with bob and
// the archived open "arch"; mallory is a hub member in none of the private ones.
type writeTeam struct {
	alice, bob, mallory key
	a, b, m             *raw
}

func startWriteTeam(t *testing.T, h *procHub) writeTeam {
	t.Helper()
	w := writeTeam{alice: newKey(t), bob: newKey(t), mallory: newKey(t)}
	adm := h.as(t, h.admin)
	for _, k := range []key{w.alice, w.bob, w.mallory} {
		adm.must(h.admin.sign(t, 8000, "", nostr.Tag{"p", k.pk}))
	}
	w.a, w.b, w.m = h.as(t, w.alice), h.as(t, w.bob), h.as(t, w.mallory)
	createChannel(t, w.a, w.alice, "pub", "open")
	createChannel(t, w.a, w.alice, "priv", "private")
	createChannel(t, w.a, w.alice, "arch", "open")
	w.a.must(w.alice.sign(t, 9007, "", nostr.Tag{"h", "dm-ab"}, nostr.Tag{"type", "dm"}, nostr.Tag{"p", w.bob.pk}))
	w.a.must(w.alice.sign(t, 9008, "", nostr.Tag{"h", "arch"}))
	return w
}

// agentOf attests a fresh agent key for owner and authenticates it.
func agentOf(t *testing.T, h *procHub, owner key) (key, nostr.Tag, *raw) {
	t.Helper()
	agent := newKey(t)
	tag := attest(t, owner, agent, time.Hour)
	return agent, tag, h.as(t, agent, tag)
}

// namedAgentOf is agentOf with the agent's profile (name, and the owner's
// tag) published, so the hub knows whose agent it is.
func namedAgentOf(t *testing.T, h *procHub, owner key, name string) (key, nostr.Tag, *raw) {
	t.Helper()
	agent, tag, c := agentOf(t, h, owner)
	c.must(agent.sign(t, 0, `{"name":"`+name+`"}`, tag))
	return agent, tag, c
}
