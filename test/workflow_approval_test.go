package test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/chromedp/chromedp"
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
	c, err := client.Connect(ctx, client.Options{URLs: []string{e.hub}, Pin: e.pin, Keys: keys, AuthTag: tag})
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

// gateOf waits until run waits at its step "gate" and returns its waiting record's
// body and the request message.
func (e *wfEnv) gateOf(t *testing.T, run string) (client.RecordBody, nostr.Event) {
	t.Helper()
	rec := e.waitRecord(t, run, 20*time.Second, func(r client.RunRecord) bool { return r.Status == kinds.RunWaiting && r.Step == "gate" })
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

// waitMessage waits until ops holds a message by the runner containing s.
func (e *wfEnv) waitMessage(t *testing.T, s string, within time.Duration) nostr.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	sub, err := e.alice.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.Message}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{"h": {"ops"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for {
		select {
		case ev := <-sub.Events():
			if strings.Contains(ev.Content, s) {
				return ev
			}
		case <-ctx.Done():
			t.Fatalf("no message %q within %v", s, within)
		}
	}
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

// The other ways to decide, through the real binaries. min 2: bob's hive
// workflow approve is exit 3 naming who may, and sends nothing; carol's
// paired device approves as carol (one of two); dave's hive workflow
// approve --note completes it: the approved record lists both, by dave.
// A deny by carol's hive workflow approve --deny --note fails the run at
// the gate with her name and note (run --wait exit 5). A gate nobody
// decides times out per on_timeout: fail, with the badge and a note that
// mentions the one who started the run.
func TestWorkflowApprovalCLIDeviceDenyTimeout(t *testing.T) {
	e := newWorkflowEnvOf(t, "bob", "carol", "dave")
	e.apply(t, "pair", gateWorkflow("pair", `{approvers: ["@carol", "@dave"], min: 2}`))
	e.apply(t, "deny", gateWorkflow("deny", `{approvers: ["@carol"]}`))
	e.apply(t, "late", gateWorkflow("late", `{approvers: ["@carol"], timeout: 2s}`))
	e.serve(t)
	carol, dave := e.keysOf(t, "carol").PublicHex, e.keysOf(t, "dave").PublicHex

	run := e.runID(t, "pair")
	_, req := e.gateOf(t, run)
	out, stderr, code := e.c.run("workflow", "approve", run, "--profile", "bob")
	if code != 3 || !strings.Contains(stderr, "you may not decide run "+run[:8]+"'s gate gate: not an approver (approvers: carol, dave); who may: carol, dave") {
		t.Fatalf("bob's approve: exit %d\n%s%s", code, out, stderr)
	}
	if rx := e.query(t, nostr.Filter{Kinds: []int{kinds.Reaction}, Tags: nostr.TagMap{"e": {req.ID}}}); len(rx) != 0 {
		t.Fatalf("bob's refused approve sent %d reactions", len(rx))
	}
	phone, _ := e.connectAttested(t, e.keysOf(t, "carol"), true)
	react(t, phone, req, "✅")
	e.c.ok("workflow", "approve", run, "--note", "lgtm", "--profile", "dave")
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("the run ended %s: %s", rec.Status, rec.Reason)
	}
	approved := e.recordBodies(t, run, kinds.RunApproved)
	if len(approved) != 1 || approved[0].By != dave || !slices.Equal(approved[0].Approvals, []string{carol, dave}) || approved[0].Reason != "approved by carol, dave" {
		t.Fatalf("approved: %+v", approved)
	}
	if n := len(e.messagesWith(t, "pair went on: true by dave note lgtm")); n != 1 {
		t.Fatalf("the step after the gate posted %d times", n)
	}
	if ig := e.recordBodies(t, run, kinds.RunIgnored); len(ig) != 0 {
		t.Fatalf("the device's approval was ignored: %+v", ig)
	}

	run = e.runID(t, "deny")
	e.gateOf(t, run)
	e.c.ok("workflow", "approve", run, "--deny", "--note", "not today", "--profile", "carol")
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFailed || rec.Reason != "at gate: denied by carol: not today" {
		t.Fatalf("the denied run: %s %q", rec.Status, rec.Reason)
	}
	if d := e.recordBodies(t, run, kinds.RunDenied); len(d) != 1 || d[0].By != carol || d[0].Note != "not today" {
		t.Fatalf("denied: %+v", d)
	}
	if n := len(e.messagesWith(t, "deny went on")); n != 0 {
		t.Fatalf("a denied gate went on (%d posts)", n)
	}
	_, stderr, code = e.c.run("workflow", "approve", run, "--profile", "carol")
	if code != 4 || !strings.Contains(stderr, "run "+run[:8]+" waits for no approval now") {
		t.Fatalf("approve after the end: exit %d %s", code, stderr)
	}

	out, stderr, code = e.c.run("workflow", "run", "late", "--wait", "--profile", "bob")
	run = strings.SplitN(out, "\n", 2)[0]
	if code != 5 || !strings.Contains(stderr, "failed: at gate: approval timed out after 2s") {
		t.Fatalf("the late run: exit %d\n%s%s", code, out, stderr)
	}
	e.waitMessage(t, "✗ late failed at gate: approval timed out after 2s (started by @bob)", 10*time.Second)
	if n := len(e.messagesWith(t, "✗ late failed at gate: approval timed out after 2s (started by @bob)")); n != 1 {
		t.Fatalf("failure notes: %d", n)
	}
	if text := e.c.ok("read", "ops", "--profile", "carol"); !strings.Contains(text, "✗ failed at gate: approval timed out after 2s") {
		t.Fatalf("hive read shows no failure badge:\n%s", text)
	}
}

// A gate waits durably: the runner is killed -9 while it waits, carol
// approves while it is down, and the runner started again counts her
// approval: one approved record, the next step posts once, one finished
// record; the time that remains is what it waits.
func TestWorkflowApprovalSurvivesKill9(t *testing.T) {
	e := newWorkflowEnvOf(t, "bob", "carol")
	e.apply(t, "durable", gateWorkflow("durable", `{approvers: ["@carol"], timeout: 1h}`))
	rp := e.serve(t)
	run := e.runID(t, "durable")
	b, req := e.gateOf(t, run)
	rp.kill9()
	react(t, e.as(t, "carol"), req, "✅")
	rp = e.serve(t)
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("the run ended %s: %s", rec.Status, rec.Reason)
	}
	if a := e.recordBodies(t, run, kinds.RunApproved); len(a) != 1 || a[0].By != e.keysOf(t, "carol").PublicHex {
		t.Fatalf("approved: %+v", a)
	}
	if n := len(e.messagesWith(t, "durable went on: true by carol")); n != 1 {
		t.Fatalf("the step after the gate posted %d times", n)
	}
	if n := len(e.messagesWith(t, "🔐 Approval needed for durable")); n != 1 {
		t.Fatalf("%d approval requests", n)
	}
	if w := e.recordBodies(t, run, kinds.RunWaiting); len(w) != 1 || w[0].Until != b.Until {
		t.Fatalf("waiting records: %+v", w)
	}
	if f := e.recordBodies(t, run, kinds.RunFinished); len(f) != 1 {
		t.Fatalf("%d finished records", len(f))
	}
	rp.waitLog(t, "resuming run", time.Second)
}

// hive chat decides a gate: carol opens the run card's thread in a tmux
// pane, selects the approval request (it mentions her) and presses a: her
// ✅ approves and the card's badge moves on to the end.
func TestWorkflowApprovalChatKey(t *testing.T) {
	e := newWorkflowEnvOf(t, "bob", "carol")
	e.apply(t, "tui", gateWorkflow("tui", `{approvers: ["@carol"]}`))
	e.serve(t)
	run := e.runID(t, "tui")
	e.gateOf(t, run)
	p := startChat(t, e.c.home, 120, 34, "ops", "--profile", "carol")
	p.waitText("#ops", "▶ tui · run "+run[:8], "waiting for approval (carol) until ")
	p.keys("C-o") // the timeline: the card is selected
	p.keys("C-t") // its thread
	p.waitText("🔐 Approval needed for tui")
	p.keys("M-k") // the request, the thread's newest row
	p.keys("a")
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("the run ended %s: %s", rec.Status, rec.Reason)
	}
	if a := e.recordBodies(t, run, kinds.RunApproved); len(a) != 1 || a[0].By != e.keysOf(t, "carol").PublicHex {
		t.Fatalf("approved: %+v", a)
	}
	p.waitText("✓ finished", "✅ 1")
}

// The web chat decides a gate: carol signs in with her key, opens the run
// card's thread in #ops, and the approval request that mentions her shows
// Approve and Deny; Approve reacts ✅, the runner approves, and the card's
// badge moves on to the end. Seen at phone and desktop width.
func TestWorkflowApprovalWebButton(t *testing.T) {
	e := newWorkflowEnvAt(t, true, "bob", "carol")
	e.apply(t, "web", gateWorkflow("web", `{approvers: ["@carol"]}`))
	e.serve(t)
	run := e.runID(t, "web")
	b, _ := e.gateOf(t, run)
	w := &webTeam{h: e.web, cli: e.c, b: newBrowser(t, e.pin)}
	w.importKey(t, e.tm.keys["carol"])
	w.openChannel(t, "ops")
	card := w.waitMessage(t, tid("timeline"), "▶ web · run "+run[:8])
	w.b.waitUntil("the card's badge waits for carol", fmt.Sprintf(`(document.querySelector(%q)?.textContent || "").includes("waiting for approval (carol) until ")`, messageSel(card)+" "+tid("run-badge")))
	w.b.do("scroll to the card", evalDo(fmt.Sprintf(`document.querySelector(%q).scrollIntoView()`, messageSel(card))))
	w.b.click(messageSel(card) + " " + tid("thread-replies"))
	w.b.waitVisible(tid("thread-pane") + " " + messageSel(b.Request) + " " + tid("approve"))
	w.b.do("phone width", chromedp.EmulateViewport(390, 844))
	w.b.screenshot("approval-phone")
	w.b.do("desktop width", chromedp.EmulateViewport(1280, 800))
	w.b.screenshot("approval-desktop")
	w.b.click(tid("thread-pane") + " " + messageSel(b.Request) + " " + tid("approve"))
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("the run ended %s: %s", rec.Status, rec.Reason)
	}
	if a := e.recordBodies(t, run, kinds.RunApproved); len(a) != 1 || a[0].By != e.keysOf(t, "carol").PublicHex {
		t.Fatalf("approved: %+v", a)
	}
	w.b.waitUntil("the card's badge says finished", fmt.Sprintf(`(document.querySelector(%q)?.textContent || "").includes("✓ finished")`, messageSel(card)+" "+tid("run-badge")))
	w.b.noConsoleErrors()
}
