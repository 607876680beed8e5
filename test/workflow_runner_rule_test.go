package test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// The hub (the real binary) takes a run's claims and records and a
// workflow's status (40460, 40461, 30463) only from the runner the
// definition's p names, in the definition's channel; a webhook (30462)
// only from an owner or admin, for a stored definition, with a hook id no
// other workflow has and a secret sealed to the hub; a delivery (40463)
// from nobody but the hub. Each refusal says why.
func TestWorkflowHubRulesForRunsAndHooks(t *testing.T) {
	admin := newKey(t)
	data := t.TempDir()
	p := startProc(t, data, freeAddr(t), "--admin", admin.pk)
	h := &closedHub{URL: p.URL, Admin: admin}
	adm := h.as(t, admin)
	alice, bob, runner := newKey(t), newKey(t), newKey(t)
	for _, k := range []key{alice, bob, runner} {
		h.addMember(t, adm, k)
	}
	a := h.as(t, alice)
	for _, ch := range []string{"ops", "dev"} {
		createChannel(t, a, alice, ch, "private")
		a.must(alice.sign(t, 9000, "", nostr.Tag{"h", ch}, nostr.Tag{"p", bob.pk}))
		a.must(alice.sign(t, 9000, "", nostr.Tag{"h", ch}, nostr.Tag{"p", runner.pk}))
	}
	src := "name: hooked\nchannel: ops\non: {webhook: {}}\nsteps: [{id: a, post: x}]\n"
	a.must(alice.sign(t, 30460, src, nostr.Tag{"d", "hooked"}, nostr.Tag{"h", "ops"}, nostr.Tag{"p", runner.pk}))
	a.must(alice.sign(t, 30460, strings.ReplaceAll(src, "hooked", "other"), nostr.Tag{"d", "other"}, nostr.Tag{"h", "ops"}, nostr.Tag{"p", runner.pk}))
	addr := "30460:" + alice.pk + ":hooked"
	nowhere := "30460:" + alice.pk + ":nope"
	claim := func(k key, ch, at string) *nostr.Event {
		return k.sign(t, 40460, "", nostr.Tag{"h", ch}, nostr.Tag{"a", at}, nostr.Tag{"trigger", "manual", strings.Repeat("1", 64)}, nostr.Tag{"hops", "1"})
	}
	record := func(k key) *nostr.Event {
		return k.sign(t, 40461, "{}", nostr.Tag{"h", "ops"}, nostr.Tag{"e", strings.Repeat("2", 64)}, nostr.Tag{"R", strings.Repeat("3", 64)}, nostr.Tag{"status", "finished"}, nostr.Tag{"a", addr})
	}
	hubKeys, err := identity.LoadKeyFile(filepath.Join(data, "hub.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	seal := func(k key, text string) string {
		ck, _ := nip44.GenerateConversationKey(hubKeys.PublicHex, k.sk)
		ct, _ := nip44.Encrypt(text, ck)
		return ct
	}
	secret := "whsec_" + strings.Repeat("QUJD", 10) + "QUI="
	hookID := strings.Repeat("ab", 16)
	hook := func(k key, at, content string, extra ...nostr.Tag) *nostr.Event {
		return k.sign(t, 30462, content, append([]nostr.Tag{{"d", at}, {"h", "ops"}, {"a", at}}, extra...)...)
	}
	b, r := h.as(t, bob), h.as(t, runner)
	only := func(kind int) string {
		return "restricted: only the workflow's runner (" + runner.pk + ", the p of its definition) signs kind " + strconv.Itoa(kind) + " for " + addr
	}
	for _, tc := range []struct {
		r      *raw
		ev     *nostr.Event
		reason string
	}{
		{b, claim(bob, "ops", addr), only(40460)},
		{a, record(alice), only(40461)},
		{b, bob.sign(t, 30463, "{}", nostr.Tag{"d", addr}, nostr.Tag{"h", "ops"}, nostr.Tag{"a", addr}), only(30463)},
		{r, claim(runner, "ops", nowhere), `invalid: kind 40460 names no stored workflow definition in its a tag ("` + nowhere + `")`},
		{r, claim(runner, "dev", addr), "invalid: kind 40460 is of channel dev, and its workflow lives in channel ops"},
		{r, runner.sign(t, 30463, "{}", nostr.Tag{"d", "x"}, nostr.Tag{"h", "ops"}, nostr.Tag{"a", addr}), "invalid: a workflow status's d and a tags both name its workflow's address (30460:<author>:<name>)"},
		{b, hook(bob, addr, seal(bob, secret), nostr.Tag{"w", hookID}), "restricted: only a channel owner or admin may set a workflow's webhook in channel ops"},
		{a, hook(alice, nowhere, seal(alice, secret), nostr.Tag{"w", hookID}), "invalid: no workflow definition at " + nowhere + ": apply the workflow first"},
		{a, hook(alice, addr, seal(alice, secret), nostr.Tag{"w", "ABC"}), "invalid: the w tag is the hook id: 32 lower-case hex characters"},
		{a, hook(alice, addr, seal(alice, "hunter2"), nostr.Tag{"w", hookID}), "invalid: the content must be the webhook's secret (whsec_...) NIP-44-encrypted to the hub's key " + hubKeys.PublicHex},
		{a, hook(alice, addr, "plain"), "invalid: a deleted webhook (no w tag) has no content"},
		{a, alice.sign(t, 40463, "{}", nostr.Tag{"h", "ops"}, nostr.Tag{"a", addr}, nostr.Tag{"w", hookID}, nostr.Tag{"i", "x"}), "restricted: kind 40463 is signed by the hub only"},
	} {
		if ok, msg := tc.r.publish(tc.ev); ok || msg != tc.reason {
			t.Errorf("kind %d: got ok=%v %q\nwant %q", tc.ev.Kind, ok, msg, tc.reason)
		}
	}
	if evs, _ := a.req("refused", nostr.Filter{Kinds: []int{40460, 40461, 30463, 30462, 40463}}); len(evs) != 0 {
		t.Fatalf("refused events were stored: %d", len(evs))
	}
	// the runner may; an admin may set a hook, whose id no other workflow may take
	r.must(claim(runner, "ops", addr))
	r.must(runner.sign(t, 30463, "{}", nostr.Tag{"d", addr}, nostr.Tag{"h", "ops"}, nostr.Tag{"a", addr}))
	a.must(hook(alice, addr, seal(alice, secret), nostr.Tag{"w", hookID}))
	other := "30460:" + alice.pk + ":other"
	if ok, msg := a.publish(hook(alice, other, seal(alice, secret), nostr.Tag{"w", hookID})); ok || msg != "invalid: hook id "+hookID+" belongs to another workflow: make a new one" {
		t.Fatalf("a second workflow taking the hook id: ok=%v %q", ok, msg)
	}
}
