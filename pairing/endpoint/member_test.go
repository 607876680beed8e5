package endpoint

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// startMembers is an endpoint at which member (and only member) may
// authenticate.
func startMembers(t *testing.T, lim Limits, member string) string {
	t.Helper()
	s, url := start(t, lim)
	s.Members([]string{url}, func(pk string) bool { return pk == member })
	return url
}

// authenticate answers the connection's challenge as sk (mod changes the
// event before it is signed) and returns the OK's message.
func (c *client) authenticate(url, sk string, mod func(ev *nostr.Event)) string {
	c.t.Helper()
	ch := str(c.expect("AUTH")[1])
	ev := &nostr.Event{Kind: authKind, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"relay", url}, {"challenge", ch}}}
	if mod != nil {
		mod(ev)
	}
	ev.Sign(sk)
	c.send("AUTH", ev)
	m := c.expect("OK")
	return str(m[3])
}

func TestMemberAuthRules(t *testing.T) {
	alice := nostr.GeneratePrivateKey()
	alicePK, _ := nostr.GetPublicKey(alice)
	url := startMembers(t, Limits{}, alicePK)
	cases := []struct {
		sk   string
		mod  func(ev *nostr.Event)
		want string
	}{
		{nostr.GeneratePrivateKey(), nil, "restricted: only a member of this hub authenticates on its pairing endpoint; pair without AUTH, or from a member's profile"},
		{alice, func(ev *nostr.Event) { ev.Tags[1][1] = "other" }, "invalid: AUTH needs exactly one challenge tag, this connection's challenge"},
		{alice, func(ev *nostr.Event) { ev.Tags[0][1] = "ws://elsewhere.example/pair" }, "invalid: AUTH needs exactly one relay tag, this pairing endpoint's URL (" + url + ")"},
		{alice, func(ev *nostr.Event) { ev.Kind = 1 }, "invalid: AUTH needs a kind 22242 event, got kind 1"},
		{alice, func(ev *nostr.Event) { ev.CreatedAt -= 600 }, "invalid: AUTH created_at must be within 120 s of now"},
		{alice, nil, ""},
	}
	for i, tc := range cases {
		c := dial(t, url)
		if got := c.authenticate(url, tc.sk, tc.mod); got != tc.want {
			t.Errorf("case %d: AUTH answered %q, want %q", i, got, tc.want)
		}
	}
}

// TestMemberSessionHasItsOwnBudget: once an address spent its budget on
// unauthenticated sessions, a member's session from that address still
// gets its offer and still sends to its peer; it is bounded by its own
// per-session budget instead.
func TestMemberSessionHasItsOwnBudget(t *testing.T) {
	alice := nostr.GeneratePrivateKey()
	alicePK, _ := nostr.GetPublicKey(alice)
	url := startMembers(t, Limits{AddrEvents: 2, DeliveriesPerP: 3, RateEvents: 100}, alicePK)
	// Spend the address's budget between strangers' sessions.
	p, evs := offers(t, 3)
	dial(t, url).subscribe("s", p)
	c := dial(t, url)
	for i, ev := range evs {
		msg := c.publish(ev)
		if want := "rate-limited: your address has used its 2 pairing events for 300 s; try again in "; i == 2 && !strings.HasPrefix(msg, want) {
			t.Fatalf("3rd event from the spent address: %q, want it to start %q", msg, want)
		}
	}

	src := dial(t, url)
	if msg := src.authenticate(url, alice, nil); msg != "" {
		t.Fatalf("member AUTH: %q", msg)
	}
	p, evs = offers(t, 4)
	src.subscribe("s", p)
	joiner := dial(t, url)
	for i := 0; i < 3; i++ {
		if msg := joiner.publish(evs[i]); msg != "" {
			t.Fatalf("offer %d to a member's session from the spent address: %q", i, msg)
		}
		src.expect("EVENT")
	}
	if msg := joiner.publish(evs[3]); msg != "rate-limited: too many events for this recipient" {
		t.Fatalf("4th event to a member's session of 3: %q", msg)
	}
	// The member's own events reach a stranger's session behind the spent address.
	q := nostr.GeneratePrivateKey()
	qpk, _ := nostr.GetPublicKey(q)
	joiner.subscribe("j", qpk)
	reply := signed(t, func(ev *nostr.Event) { ev.Tags = nostr.Tags{{"p", qpk}} })
	if msg := src.publish(reply); msg != "" {
		t.Fatalf("member's event to a session behind the spent address: %q", msg)
	}
	joiner.expect("EVENT")
}
