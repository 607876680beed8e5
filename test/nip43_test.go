package test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// askInvite asks the hub for an invite claim (a REQ for kind 28935) and
// returns it, or the CLOSED reason.
func askInvite(t testing.TB, r *raw, tags nostr.TagMap) (*nostr.Event, string) {
	t.Helper()
	evs, closed := r.req("inv", nostr.Filter{Kinds: []int{28935}, Tags: tags})
	if closed != "" {
		return nil, closed
	}
	if len(evs) != 1 {
		t.Fatalf("REQ for 28935: %d events", len(evs))
	}
	return evs[0], ""
}

// joinWith sends a NIP-43 join request with claim and returns the OK.
func joinWith(r *raw, k key, claim string) (bool, string) {
	r.t.Helper()
	return r.publish(k.sign(r.t, 28934, "", nostr.Tag{"-"}, nostr.Tag{"claim", claim}))
}

// NIP-43 against the real binary (--invites members): a key that is not a
// member completes AUTH, may only ask to join, and is refused everything
// else with the reason; a member's claim admits it on the same connection
// (a hub-signed 8000 naming the issuer), its uses counted; a forged, a
// used-up, an expired and a revoked claim are refused with their reasons.
func TestNIP43InvitesBinary(t *testing.T) {
	data := t.TempDir()
	p := startProc(t, data, freeAddr(t), "--invites", "members")
	self := fetchNIP11(t, p.URL).Self
	admin := readKeyFile(t, data+"/admin.key")
	a := p.as(t, admin)
	bob := newKey(t)
	a.must(admin.sign(t, 8000, "", nostr.Tag{"p", bob.pk}))
	b := p.as(t, bob)
	inv, closed := askInvite(t, b, nostr.TagMap{"u": {"2"}})
	if closed != "" || inv.PubKey != self || inv.Tags.Find("claim") == nil || inv.Tags.Find("u")[1] != "2" {
		t.Fatalf("bob's invite: %v %q", inv, closed)
	}
	claim := inv.Tags.Find("claim")[1]

	// a stranger authenticates (OK true) and is refused everything but a join
	carol := newKey(t)
	c := dialRaw(t, p.URL)
	if ok, msg := c.auth(carol, p.URL); !ok {
		t.Fatalf("a stranger's AUTH: %q, want OK true (NIP-43: it may ask to join)", msg)
	}
	npub, _ := nip19.EncodePublicKey(carol.pk)
	reason := "restricted: " + npub + " is not a member of this hub; ask a hub admin to add you, or authenticate with your owner's NIP-OA auth tag; or join with an invite (a kind 28934 join request with its claim)"
	if _, closed := c.req("r", nostr.Filter{Kinds: []int{9}}); closed != reason {
		t.Errorf("a guest's REQ: %q, want %q", closed, reason)
	}
	if ok, msg := c.publish(carol.sign(t, 1, "hi")); ok || msg != reason {
		t.Errorf("a guest's EVENT: %v %q", ok, msg)
	}
	if _, closed := askInvite(t, c, nil); closed != reason {
		t.Errorf("a guest asking for an invite: %q", closed)
	}
	for bad, want := range map[string]string{
		"":                            "restricted: a join request needs an invite code (claim); ask a hub member for an invite link",
		claim[:20] + "x" + claim[21:]: "restricted: that is not a valid invite code for this hub",
		"not-a-claim":                 "restricted: that is not a valid invite code for this hub",
	} {
		if ok, msg := joinWith(c, carol, bad); ok || msg != want {
			t.Errorf("join with claim %.24q: %v %q, want %q", bad, ok, msg, want)
		}
	}
	if ok, msg := joinWith(c, carol, claim); !ok || msg != "info: welcome to "+p.URL+"!" {
		t.Fatalf("join with bob's claim: %v %q", ok, msg)
	}
	// admitted on the same connection
	if _, closed := c.req("after", nostr.Filter{Kinds: []int{9}}); closed != "" {
		t.Fatalf("REQ after joining: %q", closed)
	}
	c.must(carol.sign(t, 1, "hello, I am in"))
	if ok, msg := joinWith(c, carol, claim); !ok || msg != "duplicate: you are already a member of this hub" {
		t.Errorf("a member's join request: %v %q", ok, msg)
	}
	adds, _ := a.req("adds", nostr.Filter{Kinds: []int{8000}, Tags: nostr.TagMap{"p": {carol.pk}}})
	if len(adds) != 1 || adds[0].PubKey != self || adds[0].Tags.Find("issuer")[1] != bob.pk || !slices.ContainsFunc(adds[0].Tags, func(tg nostr.Tag) bool { return len(tg) == 1 && tg[0] == "-" }) {
		t.Errorf("carol's 8000: %v", adds)
	}

	// the second use admits dave, the third is refused
	dave, erin := newKey(t), newKey(t)
	d := dialRaw(t, p.URL)
	d.auth(dave, p.URL)
	if ok, msg := joinWith(d, dave, claim); !ok {
		t.Fatalf("second use: %q", msg)
	}
	e := dialRaw(t, p.URL)
	e.auth(erin, p.URL)
	if ok, msg := joinWith(e, erin, claim); ok || msg != "restricted: that invite code has been used 2 of 2 times; ask for a new one" {
		t.Errorf("third use of a 2-use claim: %v %q", ok, msg)
	}

	// revoked: bob's claims stop admitting once bob is removed
	inv2, _ := askInvite(t, b, nil)
	a.must(admin.sign(t, 8001, "", nostr.Tag{"p", bob.pk}))
	bobNpub, _ := nip19.EncodePublicKey(bob.pk)
	if ok, msg := joinWith(e, erin, inv2.Tags.Find("claim")[1]); ok || msg != "restricted: that invite code was revoked: its issuer "+bobNpub+" may no longer invite (only hub members make invites)" {
		t.Errorf("a removed member's claim: %v %q", ok, msg)
	}

	// expired: a claim that lives one second, tried with fresh keys until
	// the hub answers that it expired
	inv3, _ := askInvite(t, a, nostr.TagMap{"u": {"1000"}, "x": {"1"}})
	deadline := time.Now().Add(10 * time.Second)
	for {
		k := newKey(t)
		r := dialRaw(t, p.URL)
		r.auth(k, p.URL)
		ok, msg := joinWith(r, k, inv3.Tags.Find("claim")[1])
		if !ok {
			if !strings.HasPrefix(msg, "restricted: that invite code expired at ") || !strings.HasSuffix(msg, "; ask for a new one") {
				t.Fatalf("an expired claim: %q", msg)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a one-second claim still admits keys after 10 s")
		}
		r.ws.Close()
	}

	// the member list: 13534 and `hive member list` name the admin too
	lists, _ := a.req("ml", nostr.Filter{Kinds: []int{13534}})
	m := newest(lists, 13534)
	for _, pk := range []string{admin.pk, carol.pk, dave.pk} {
		found := false
		for _, tg := range m.Tags {
			found = found || (tg[0] == "member" && tg[1] == pk)
		}
		if !found {
			t.Errorf("13534 lacks %s", pk[:8])
		}
	}
	cli := newCLI(t)
	out := cli.ok("member", "list", "--hub", p.URL, "--key", data+"/admin.key")
	adminNpub, _ := nip19.EncodePublicKey(admin.pk)
	for _, want := range []string{adminNpub, npub} {
		if !strings.Contains(out, want) {
			t.Errorf("hive member list lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, bobNpub) {
		t.Errorf("hive member list still lists the removed bob:\n%s", out)
	}
}

// Default --invites admins: a member who is not an admin asks for an invite
// and is told why not; with --invites off a stranger's AUTH is refused as
// before.
func TestNIP43InviteModes(t *testing.T) {
	h := startClosedHub(t)
	a := h.as(t, h.Admin)
	bob := newKey(t)
	h.addMember(t, a, bob)
	if _, closed := askInvite(t, h.as(t, bob), nil); closed != "restricted: only hub admins make invites on this hub (hive serve --invites admins)" {
		t.Errorf("a member asking under --invites admins: %q", closed)
	}
	if inv, closed := askInvite(t, a, nostr.TagMap{"u": {"0"}}); closed != `invalid: #u (the invite's uses): want one whole number from 1 to 1000, got ["0"]` {
		t.Errorf("uses 0: %v %q", inv, closed)
	}
}
