package test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// gateWorkflow is a manual workflow with an approval gate (approvers
// given) between two posts.
func gateWorkflow(name, gate string) string {
	return "name: " + name + `
channel: ops
on: {manual: {}}
steps:
  - id: gate
    approval: ` + gate + `
  - id: after
    post: "` + name + ` went on: ${{ steps.gate.approved }} by ${{ steps.gate.by }} note ${{ steps.gate.note }}"
`
}

// keysOf is a team member's key.
func (e *wfEnv) keysOf(t *testing.T, profile string) identity.Keys {
	t.Helper()
	file := e.tm.keys[profile]
	if profile == "alice" {
		file = filepath.Join(e.dir, "hub", "admin.key")
	}
	k, err := identity.LoadKeyFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// connectAttested connects a new key attested by owner (tag), publishing
// its profile: an agent's (bot) or a paired device's.
func (e *wfEnv) connectAttested(t *testing.T, owner identity.Keys, device bool) (*client.Client, string) {
	t.Helper()
	k := newKey(t)
	var tag nostr.Tag
	if device {
		tag = deviceTag(t, key{owner.SecretHex, owner.PublicHex}, k, time.Hour)
	} else {
		tag = attest(t, key{owner.SecretHex, owner.PublicHex}, k, time.Hour)
	}
	keys, err := identity.KeysFromSecretHex(k.sk)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Options{URLs: []string{e.p.URL}, Keys: keys, AuthTag: tag})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	prof := client.AgentProfile("helper", "an agent", tag)
	if device {
		prof = client.DeviceProfile("phone", tag)
	}
	if _, err := c.Publish(ctx, prof); err != nil {
		t.Fatal(err)
	}
	return c, k.pk
}

// gateOf waits until run waits at a gate and returns its waiting record's
// body and the request message.
func (e *wfEnv) gateOf(t *testing.T, run string) (client.RecordBody, nostr.Event) {
	t.Helper()
	rec := e.waitRecord(t, run, 20*time.Second, func(r client.RunRecord) bool { return r.Status == kinds.RunWaiting })
	evs := e.query(t, nostr.Filter{IDs: []string{rec.ID}})
	_, b, _ := client.ParseRunRecord(evs[0])
	if b.For != kinds.WaitApproval || b.Publish == nil || b.Publish.ID != b.Request {
		t.Fatalf("waiting record %+v", b)
	}
	e.waitEvent(t, nostr.Filter{IDs: []string{b.Request}}, 10*time.Second)
	return b, *b.Publish
}

// waitEvent waits until the hub holds an event matching f.
func (e *wfEnv) waitEvent(t *testing.T, f nostr.Filter, within time.Duration) nostr.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	sub, err := e.alice.Subscribe(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	select {
	case ev := <-sub.Events():
		return ev
	case <-ctx.Done():
		t.Fatalf("no event %+v within %v", f, within)
	}
	return nostr.Event{}
}

// react publishes a reaction by c on ev.
func react(t *testing.T, c *client.Client, ev nostr.Event, emoji string) nostr.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sent, err := c.Publish(ctx, client.Reaction(ev, emoji))
	if err != nil {
		t.Fatal(err)
	}
	return sent
}

// recordBodies are run's stored records with status, oldest first.
func (e *wfEnv) recordBodies(t *testing.T, run, status string) []client.RecordBody {
	t.Helper()
	var out []client.RecordBody
	evs := e.query(t, nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{kinds.RunTag: {run}}})
	slices.SortFunc(evs, func(a, b nostr.Event) int { return int(kinds.AtMillis(&a) - kinds.AtMillis(&b)) })
	for _, ev := range evs {
		if rec, b, _ := client.ParseRunRecord(ev); rec.Status == status {
			out = append(out, b)
		}
	}
	return out
}

// Approval by reaction, through the real binaries: the request is a reply
// in the run's thread that mentions the approvers (carol, a channel admin,
// and bob by name), and the badge says whom it waits for. An agent's ✅,
// the starter's ✅ (bob: allow_self is false) and dave's ✅ (no approver)
// each get an ignored record naming them and why, and a thread note; a
// 👍 decides nothing; carol's ✅ approves: the approved record names her,
// the next step sees steps.gate.approved and by, the run finishes once.
func TestWorkflowApprovalByReaction(t *testing.T) {
	e := newWorkflowEnvOf(t, "bob", "carol", "dave")
	e.c.ok("channel", "add", "ops", e.tm.npub["carol"], "--role", "admin", "--profile", "alice")
	e.apply(t, "gated", gateWorkflow("gated", "{approvers: [channel-admins, \"@bob\"], message: \"ship ${{ run.short }}?\", timeout: 1h}"))
	e.serve(t)
	run := e.runID(t, "gated")
	b, req := e.gateOf(t, run)
	carol, bob := e.keysOf(t, "carol").PublicHex, e.keysOf(t, "bob").PublicHex
	if want := []string{bob, carol}; !slices.Equal(b.Approvers, sortedCopy(want)) || b.Who != "channel admins, bob" || b.Min != 1 {
		t.Fatalf("the gate: approvers %v who %q min %d", b.Approvers, b.Who, b.Min)
	}
	if !req.Tags.ContainsAny("p", []string{carol}) || !req.Tags.ContainsAny("p", []string{bob}) || !strings.Contains(req.Content, "ship "+run[:8]+"?") {
		t.Fatalf("the request: %+v", req)
	}
	if tag := req.Tags.Find(client.ApprovalTag); len(tag) < 3 || tag[1] != run || tag[2] != "gate" {
		t.Fatalf("the request's approval tag: %v", tag)
	}
	// carol counts it among her mentions
	var chans []struct {
		ID       string
		Mentions int
	}
	for _, line := range strings.Split(strings.TrimSpace(e.c.ok("channel", "list", "--json", "--profile", "carol")), "\n") {
		var ch struct {
			ID       string
			Mentions int
		}
		json.Unmarshal([]byte(line), &ch)
		chans = append(chans, ch)
	}
	if !slices.ContainsFunc(chans, func(c struct {
		ID       string
		Mentions int
	}) bool {
		return c.ID == "ops" && c.Mentions >= 1
	}) {
		t.Fatalf("carol's channels: %+v", chans)
	}
	if out := e.c.ok("read", "ops", "--profile", "carol"); !strings.Contains(out, "waiting for approval (channel admins, bob) until ") {
		t.Fatalf("hive read shows no approval badge:\n%s", out)
	}

	agent, agentHex := e.connectAttested(t, e.keysOf(t, "alice"), false)
	react(t, agent, req, "✅")
	react(t, e.as(t, "bob"), req, "✅")
	react(t, e.as(t, "dave"), req, "✅")
	react(t, e.as(t, "carol"), req, "👍")
	e.waitRecord(t, run, 10*time.Second, func(r client.RunRecord) bool {
		return r.Status == kinds.RunIgnored && r.By == e.keysOf(t, "dave").PublicHex
	})
	react(t, e.as(t, "carol"), req, "✅")
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("the run ended %s: %s", rec.Status, rec.Reason)
	}
	ignored := e.recordBodies(t, run, kinds.RunIgnored)
	want := []struct{ by, reason string }{
		{agentHex, "✅ from helper (alice's agent) ignored: agents never decide approvals"},
		{bob, "✅ from bob ignored: bob started the run, and allow_self is false"},
		{e.keysOf(t, "dave").PublicHex, "✅ from dave ignored: not an approver (approvers: channel admins, bob)"},
	}
	if len(ignored) != len(want) {
		t.Fatalf("ignored records: %+v", ignored)
	}
	for i, w := range want {
		if ignored[i].By != w.by || ignored[i].Reason != w.reason {
			t.Errorf("ignored %d: by %s %q, want by %s %q", i, ignored[i].By, ignored[i].Reason, w.by, w.reason)
		}
		if n := len(e.messagesWith(t, w.reason)); n != 1 {
			t.Errorf("thread notes %q: %d", w.reason, n)
		}
	}
	approved := e.recordBodies(t, run, kinds.RunApproved)
	if len(approved) != 1 || approved[0].By != carol || approved[0].Reason != "approved by carol" {
		t.Fatalf("approved records: %+v", approved)
	}
	if n := len(e.messagesWith(t, "gated went on: true by carol note ")); n != 1 {
		t.Fatalf("the step after the gate posted %d times", n)
	}
	// logs shows the new records, by = the hex key
	var byOf = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(e.c.ok("workflow", "logs", run, "--json", "--profile", "bob")), "\n") {
		var r struct{ Status, By, Reason string }
		json.Unmarshal([]byte(line), &r)
		if r.By != "" {
			byOf[r.Status+" "+r.Reason] = r.By
		}
	}
	if byOf["approved approved by carol"] != carol || byOf["ignored "+want[2].reason] != want[2].by {
		t.Fatalf("logs --json by: %v", byOf)
	}
	if text := e.c.ok("workflow", "logs", run, "--profile", "bob"); !strings.Contains(text, " approved gate 1/2 · approved by carol") {
		t.Fatalf("logs:\n%s", text)
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
