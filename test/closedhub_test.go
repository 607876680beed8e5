package test

import (
	"encoding/json"
	"fmt"
	"github.com/ainb/hive/client"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

func TestAuthAttackMatrix(t *testing.T) {
	h := startClosedHub(t)
	member, stranger := newKey(t), newKey(t)
	admin := h.as(t, h.Admin)
	h.addMember(t, admin, member)

	t.Run("no AUTH", func(t *testing.T) {
		c := dialRaw(t, h.URL)
		c.expect("AUTH")
		if _, msg := c.req("x", nostr.Filter{Kinds: []int{1}}); !hasPrefix(msg, "auth-required:") {
			t.Fatalf("REQ: %q", msg)
		}
		c.refused(member.sign(t, 1, "hi"), "auth-required: authenticate with NIP-42 before publishing")
		c.send(`["COUNT","n",{"kinds":[1]}]`)
		if m := c.expect("CLOSED"); !hasPrefix(str(m[2]), "auth-required:") {
			t.Fatalf("COUNT: %s", m[2])
		}
	})
	authEvent := func(k key, relayURL, challenge string, at time.Time) *nostr.Event {
		ev := client.AuthEvent(relayURL, challenge, nil)
		ev.CreatedAt = nostr.Timestamp(at.Unix())
		ev.Sign(k.sk)
		return &ev
	}
	try := func(t *testing.T, ev func(challenge string) *nostr.Event, want string) {
		c := dialRaw(t, h.URL)
		ch := str(c.expect("AUTH")[1])
		e := ev(ch)
		c.send([]any{"AUTH", e})
		m := c.expect("OK")
		if string(m[2]) != "false" || !reasonIs(t, str(m[3]), want) {
			t.Fatalf("got %s %s, want refusal %q", m[2], m[3], want)
		}
		// still unauthenticated, still usable; a refused key is told why
		after := "auth-required:"
		if hasPrefix(want, "restricted:") {
			after = "restricted: AUTH was refused: " + strings.TrimPrefix(str(m[3]), "restricted: ")
		}
		if _, msg := c.req("after", nostr.Filter{Kinds: []int{1}}); msg != after && !(after == "auth-required:" && hasPrefix(msg, after)) {
			t.Fatalf("after refused AUTH: %q, want %q", msg, after)
		}
	}
	t.Run("wrong challenge", func(t *testing.T) {
		try(t, func(string) *nostr.Event { return authEvent(member, h.URL, "not-the-challenge", time.Now()) }, "invalid: AUTH challenge does not match this connection's challenge")
	})
	t.Run("wrong relay URL", func(t *testing.T) {
		try(t, func(ch string) *nostr.Event { return authEvent(member, "wss://elsewhere.example", ch, time.Now()) }, "invalid: AUTH relay tag \"wss://elsewhere.example\" is not this hub's URL")
	})
	t.Run("relay URL normalised", func(t *testing.T) {
		c := dialRaw(t, h.URL)
		ch := str(c.expect("AUTH")[1])
		up := strings.Replace(h.URL, "ws://127.0.0.1", "WS://127.0.0.1", 1) + "/"
		c.send([]any{"AUTH", authEvent(member, up, ch, time.Now())})
		if m := c.expect("OK"); string(m[2]) != "true" {
			t.Fatalf("normalised URL refused: %s", m[3])
		}
	})
	t.Run("AUTH replayed on a new connection", func(t *testing.T) {
		first := dialRaw(t, h.URL)
		ch := str(first.expect("AUTH")[1])
		ev := authEvent(member, h.URL, ch, time.Now())
		first.send([]any{"AUTH", ev})
		if m := first.expect("OK"); string(m[2]) != "true" {
			t.Fatal(str(m[3]))
		}
		try(t, func(string) *nostr.Event { return ev }, "invalid: AUTH challenge does not match this connection's challenge")
	})
	t.Run("stale created_at", func(t *testing.T) {
		try(t, func(ch string) *nostr.Event { return authEvent(member, h.URL, ch, time.Now().Add(-5*time.Minute)) }, "invalid: AUTH created_at must be within 1m0s of the hub's clock")
	})
	t.Run("non-member", func(t *testing.T) {
		// NIP-43: AUTH completes (a guest may ask to join, test/nip43_test.go),
		// everything else is refused with the reason its OK carried
		want := strangerReason(stranger, "a hub admin")
		c := guest(t, h.URL, stranger, want)
		if _, msg := c.req("after", nostr.Filter{Kinds: []int{1}}); msg != want {
			t.Fatalf("a guest's REQ: %q, want %q", msg, want)
		}
		if ok, msg := c.publish(stranger.sign(t, 1, "hi")); ok || msg != want {
			t.Fatalf("a guest's EVENT: %v %q, want %q", ok, msg, want)
		}
	})
	t.Run("expired attestation", func(t *testing.T) {
		agent := newKey(t)
		now := time.Now().Unix()
		tag, err := identity.Attest(member.sk, agent.pk, identity.Conditions{}.WithNotBefore(now-7200).WithExpiry(now-60))
		if err != nil {
			t.Fatal(err)
		}
		c := dialRaw(t, h.URL)
		if ok, msg := c.authWith(agent, h.URL, 0, tag); ok || !hasPrefix(msg, "restricted:") {
			t.Fatalf("expired attestation: %v %q", ok, msg)
		}
	})
	t.Run("attestation by a non-member", func(t *testing.T) {
		agent := newKey(t)
		c := dialRaw(t, h.URL)
		if ok, msg := c.authWith(agent, h.URL, 0, attest(t, stranger, agent, time.Hour)); ok || !hasPrefix(msg, "restricted:") {
			t.Fatalf("stranger's agent: %v %q", ok, msg)
		}
	})
	t.Run("second AUTH keeps the connection", func(t *testing.T) {
		c := h.as(t, member)
		if ok, msg := c.authWith(stranger, h.URL, 0); ok {
			t.Fatalf("second AUTH as another key accepted: %q", msg)
		}
		c.must(member.sign(t, 1, "still me"))
	})
}

func TestRemovedOwnerCascadesToAgents(t *testing.T) {
	h := startClosedHub(t)
	owner, agent := newKey(t), newKey(t)
	admin := h.as(t, h.Admin)
	h.addMember(t, admin, owner)
	tag := attest(t, owner, agent, time.Hour)
	ac := h.as(t, agent, tag)
	ac.must(agent.sign(t, 1, "agent here"))
	oc := h.as(t, owner)
	admin.must(h.Admin.sign(t, 8001, "", nostr.Tag{"p", owner.pk}))
	for _, c := range []*raw{ac, oc} {
		c.ws.SetReadDeadline(time.Now().Add(2 * time.Second))
		for {
			if _, _, err := c.ws.ReadMessage(); err != nil {
				break
			}
		}
	}
	c := dialRaw(t, h.URL)
	if ok, msg := c.authWith(agent, h.URL, 0, tag); ok || !hasPrefix(msg, "restricted:") {
		t.Fatalf("removed owner's agent: %v %q", ok, msg)
	}
	c2 := dialRaw(t, h.URL) // a guest now (NIP-43), refused everything but a join
	c2.authWith(owner, h.URL, 0)
	if _, msg := c2.req("r", nostr.Filter{Kinds: []int{1}}); !hasPrefix(msg, "restricted: ") || !strings.Contains(msg, "is not a member of this hub") {
		t.Fatalf("removed owner's REQ: %q", msg)
	}
}

func TestChannelAccessAttacks(t *testing.T) {
	h := startClosedHub(t)
	alice, bob, mallory := newKey(t), newKey(t), newKey(t)
	admin := h.as(t, h.Admin)
	for _, k := range []key{alice, bob, mallory} {
		h.addMember(t, admin, k)
	}
	a, b, m := h.as(t, alice), h.as(t, bob), h.as(t, mallory)
	createChannel(t, a, alice, "secret", "private")
	a.must(alice.sign(t, 9000, "", nostr.Tag{"h", "secret"}, nostr.Tag{"p", bob.pk, "guest"}))
	msg := a.must(alice.sign(t, 9, "the plan", nostr.Tag{"h", "secret"}, nostr.Tag{"p", mallory.pk}))

	// Filters that target the channel, its events or others' private kinds are
	// refused; generic ones are answered without anything of the channel.
	for name, f := range map[string]nostr.Filter{
		"by #h":               {Kinds: []int{9}, Tags: nostr.TagMap{"h": {"secret"}}},
		"by #h, no kinds":     {Tags: nostr.TagMap{"h": {"secret", "elsewhere"}}},
		"by ids":              {IDs: []string{msg.ID}},
		"channel metadata":    {Kinds: []int{39000}, Tags: nostr.TagMap{"d": {"secret"}}},
		"read-state of alice": {Kinds: []int{30078}, Authors: []string{alice.pk}},
		"frames to alice":     {Kinds: []int{24200}, Tags: nostr.TagMap{"p": {alice.pk}}},
	} {
		evs, closed := m.req("spy", f)
		if !hasPrefix(closed, "restricted:") || len(evs) != 0 {
			t.Errorf("%s: %d events, CLOSED %q; want restricted: and nothing", name, len(evs), closed)
		}
		if n, closed := m.count("spyc", f); !hasPrefix(closed, "restricted:") {
			t.Errorf("COUNT %s: %d %q, want restricted:", name, n, closed)
		}
	}
	for name, f := range map[string]nostr.Filter{
		"by #e":           {Kinds: []int{7}, Tags: nostr.TagMap{"e": {msg.ID}}},
		"by #e, no kinds": {Tags: nostr.TagMap{"e": {msg.ID}}},
		"broad, no #h":    {Kinds: []int{9}},
		"everything":      {},
		"mentions of me":  {Kinds: []int{9}, Tags: nostr.TagMap{"p": {mallory.pk}}},
		"alice's events":  {Authors: []string{alice.pk}},
		"metadata, all":   {Kinds: []int{39000, 39001, 39002}},
		"observer frames": {Kinds: []int{24200}},
		"read-state":      {Kinds: []int{30078}},
	} {
		evs, closed := m.req("spy", f)
		if closed != "" {
			t.Errorf("%s: CLOSED %q; want an answer", name, closed)
		}
		for _, ev := range evs {
			if ev.ID == msg.ID || ev.Tags.FindWithValue("h", "secret") != nil || ev.Tags.FindWithValue("d", "secret") != nil {
				t.Errorf("%s: leaked %s", name, ev)
			}
		}
		if n, closed := m.count("spyc", f); closed != "" || n != int64(len(evs)) {
			t.Errorf("COUNT %s: %d %q, want %d like REQ", name, n, closed, len(evs))
		}
	}
	m.refused(mallory.sign(t, 9, "let me in", nostr.Tag{"h", "secret"}), "restricted: not a member of channel secret")
	m.refused(mallory.sign(t, 9021, "", nostr.Tag{"h", "secret"}), "restricted: channel secret is private; ask one of its admins to add you")
	m.refused(mallory.sign(t, 7, "+", nostr.Tag{"e", msg.ID}), "restricted: not a member of channel secret")
	m.refused(mallory.sign(t, 20002, "", nostr.Tag{"h", "secret"}), "restricted: not a member of channel secret")
	// a guest may not add members or grant roles
	b.refused(bob.sign(t, 9000, "", nostr.Tag{"h", "secret"}, nostr.Tag{"p", mallory.pk}), "restricted: only a channel owner or admin may add members to secret")
	// forged authorship and hub-signed kinds
	m.refused(alice.sign(t, 1, "I am alice"), "restricted: the event's pubkey must be the key this connection authenticated as")
	m.refused(mallory.sign(t, 39000, "", nostr.Tag{"d", "secret"}), "restricted: kind 39000 is signed by the hub only")
	// bob as a member can read
	if evs, closed := b.req("ok", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"secret"}}}); closed != "" || len(evs) != 1 {
		t.Fatalf("member read: %d events, %q", len(evs), closed)
	}
}

// Nothing of a private channel reaches a non-member, stored or live, through
// any subscription the hub accepts.
func TestNoLeakToNonMembers(t *testing.T) {
	h := startClosedHub(t)
	alice, eve := newKey(t), newKey(t)
	admin := h.as(t, h.Admin)
	h.addMember(t, admin, alice)
	h.addMember(t, admin, eve)
	a, e := h.as(t, alice), h.as(t, eve)
	createChannel(t, a, alice, "lobby", "open")
	createChannel(t, a, alice, "vault", "private")
	createChannel(t, a, alice, "dm-ae", "private", nostr.Tag{"type", "dm"}, nostr.Tag{"p", h.Admin.pk})

	// eve subscribes to everything she is allowed to ask for
	allowed := []nostr.Filter{
		{Kinds: []int{9, 7, 40003, 9005}, Tags: nostr.TagMap{"h": {"lobby"}}},
		{Kinds: []int{1, 0}},
		{Kinds: []int{39002}, Tags: nostr.TagMap{"p": {eve.pk}}},
		{Kinds: []int{24200}, Tags: nostr.TagMap{"p": {eve.pk}}},
		{Kinds: []int{30078}, Authors: []string{eve.pk}},
	}
	for i, f := range allowed {
		if _, closed := e.req(fmt.Sprint("s", i), f); closed != "" {
			t.Fatalf("allowed filter %v refused: %s", f, closed)
		}
	}
	var secret []*nostr.Event
	for i := 0; i < 5; i++ {
		secret = append(secret, a.must(alice.sign(t, 9, fmt.Sprint("vault ", i), nostr.Tag{"h", "vault"}, nostr.Tag{"p", eve.pk})))
		secret = append(secret, a.must(alice.sign(t, 9, fmt.Sprint("dm ", i), nostr.Tag{"h", "dm-ae"}, nostr.Tag{"p", eve.pk})))
	}
	secret = append(secret, a.must(alice.sign(t, 7, "+", nostr.Tag{"e", secret[0].ID})))
	a.must(alice.sign(t, 9, "public hello", nostr.Tag{"h", "lobby"}))

	isSecret := map[string]bool{}
	for _, ev := range secret {
		isSecret[ev.ID] = true
	}
	leaks, got := 0, 0
	e.ws.SetReadDeadline(time.Now().Add(1500 * time.Millisecond))
	for {
		_, b, err := e.ws.ReadMessage()
		if err != nil {
			break
		}
		var m []json.RawMessage
		json.Unmarshal(b, &m)
		if str(m[0]) != "EVENT" {
			continue
		}
		got++
		var ev nostr.Event
		json.Unmarshal(m[2], &ev)
		if isSecret[ev.ID] || ev.Tags.FindWithValue("h", "vault") != nil || ev.Tags.FindWithValue("d", "vault") != nil {
			leaks++
		}
	}
	if got == 0 {
		t.Fatal("eve received nothing at all; the test proves nothing")
	}
	if leaks != 0 {
		t.Fatalf("%d private events leaked live to a non-member", leaks)
	}
	// and stored: replay every allowed filter on a fresh connection
	e = h.as(t, eve)
	for i, f := range allowed {
		evs, _ := e.req(fmt.Sprint("again", i), f)
		for _, ev := range evs {
			if isSecret[ev.ID] {
				t.Fatalf("stored private event leaked through %v", f)
			}
		}
	}
}
