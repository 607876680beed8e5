package test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
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

// joinWith sends a NIP-43 join request with claim, as flotilla writes it
// (only a claim tag), and returns the OK.
func joinWith(r *raw, k key, claim string) (bool, string) {
	r.t.Helper()
	return r.publish(k.sign(r.t, 28934, "", nostr.Tag{"claim", claim}))
}

// guest dials the hub and authenticates as k, a key that is not a member:
// OK true, with reason as its message.
func guest(t testing.TB, url string, k key, reason string) *raw {
	t.Helper()
	r := dialRaw(t, url)
	if ok, msg := r.auth(k, url); !ok || msg != reason {
		t.Fatalf("a stranger's AUTH: %v %q, want OK true %q (NIP-43: a guest)", ok, msg, reason)
	}
	return r
}

// notAdmitted checks that k, not a member, is a guest on r: its AUTH is
// answered OK true with "restricted: <npub> is not a member of this hub"...
// and a REQ is refused with that reason.
func notAdmitted(t testing.TB, r *raw, k key, url string) {
	t.Helper()
	npub := npubOf(k.pk)
	ok, msg := r.auth(k, url)
	if !ok || !strings.HasPrefix(msg, "restricted: "+npub+" is not a member of this hub") {
		t.Fatalf("AUTH of a key that is not a member: %v %q, want OK true as a guest", ok, msg)
	}
	if _, closed := r.req("not-admitted", nostr.Filter{Kinds: []int{1}}); closed != msg {
		t.Fatalf("a guest's REQ: %q, want %q", closed, msg)
	}
}

// strangerReason is what the hub tells a key that is not a member.
func strangerReason(k key, who string) string {
	npub := npubOf(k.pk)
	return "restricted: " + npub + " is not a member of this hub; join with an invite from " + who + ", ask a hub admin to add you, or authenticate with your owner's NIP-OA auth tag"
}

// NIP-43 against the real binary (--invites members): a key that is not a
// member completes AUTH (OK true, the reason as its message), may only ask
// to join, and is refused everything else with that reason; a member's
// claim admits it on the same connection (a hub-signed 8000 naming the
// issuer), its uses counted; a forged, a used-up, an expired and a revoked
// claim are refused with their reasons; a member may leave.
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
	if closed != "" || inv.PubKey != self || inv.Tags.Find("claim") == nil || inv.Tags.Find("u")[1] != "2" || !protected(inv) {
		t.Fatalf("bob's invite: %v %q", inv, closed)
	}
	claim := inv.Tags.Find("claim")[1]

	// a stranger authenticates and is refused everything but a join
	carol := newKey(t)
	reason := strangerReason(carol, "a hub member")
	c := guest(t, p.URL, carol, reason)
	if _, closed := c.req("r", nostr.Filter{Kinds: []int{9}}); closed != reason {
		t.Errorf("a guest's REQ: %q, want %q", closed, reason)
	}
	if ok, msg := c.publish(carol.sign(t, 1, "hi")); ok || msg != reason {
		t.Errorf("a guest's EVENT: %v %q", ok, msg)
	}
	if _, closed := askInvite(t, c, nil); closed != reason {
		t.Errorf("a guest asking for an invite: %q", closed)
	}
	if ok, msg := c.publish(carol.sign(t, 28936, "")); ok || msg != "restricted: only a hub member can leave the hub; this key is not one" {
		t.Errorf("a guest's leave request: %v %q", ok, msg)
	}
	if ok, msg := c.publish(newKey(t).sign(t, 28934, "", nostr.Tag{"claim", claim})); ok || msg != "restricted: a join or leave request must be signed by the key this connection authenticated as" {
		t.Errorf("another key's join request on carol's connection: %v %q", ok, msg)
	}
	forged := []byte(claim)
	forged[30] ^= 1
	for bad, want := range map[string]string{
		"":             "restricted: a join request needs an invite code (its claim tag); ask a hub member for an invite link",
		string(forged): "restricted: that is not a valid invite code for this hub",
		"not-a-claim":  "restricted: that is not a valid invite code for this hub",
	} {
		if ok, msg := joinWith(c, carol, bad); ok || msg != want {
			t.Errorf("join with claim %.24q: %v %q, want %q", bad, ok, msg, want)
		}
	}
	old := carol.sign(t, 28934, "", nostr.Tag{"claim", claim})
	old.CreatedAt = nostr.Timestamp(time.Now().Add(-10 * time.Minute).Unix())
	old.Sign(carol.sk)
	if ok, msg := c.publish(old); ok || msg != "invalid: a join or leave request must be dated within 5m0s of the hub's clock" {
		t.Errorf("a 10-minute-old join request: %v %q", ok, msg)
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
	if len(adds) != 1 || adds[0].PubKey != self || adds[0].Tags.Find("issuer")[1] != bob.pk || !protected(adds[0]) {
		t.Errorf("carol's 8000: %v", adds)
	}

	// the second use admits dave, the third is refused
	dave, erin := newKey(t), newKey(t)
	d := guest(t, p.URL, dave, strangerReason(dave, "a hub member"))
	if ok, msg := joinWith(d, dave, claim); !ok {
		t.Fatalf("second use: %q", msg)
	}
	e := guest(t, p.URL, erin, strangerReason(erin, "a hub member"))
	if ok, msg := joinWith(e, erin, claim); ok || msg != "restricted: that invite code has been used 2 of 2 times; ask for a new one" {
		t.Errorf("third use of a 2-use claim: %v %q", ok, msg)
	}

	// revoked: bob's claims stop admitting once bob is removed
	inv2, _ := askInvite(t, b, nil)
	a.must(admin.sign(t, 8001, "", nostr.Tag{"p", bob.pk}))
	bobNpub := npubOf(bob.pk)
	if ok, msg := joinWith(e, erin, inv2.Tags.Find("claim")[1]); ok || msg != "restricted: that invite code was revoked: its issuer "+bobNpub+" may no longer invite (only hub members make invites)" {
		t.Errorf("a removed member's claim: %v %q", ok, msg)
	}

	// expired: a claim that lives one second, used once its expiration passed
	inv3, _ := askInvite(t, a, nostr.TagMap{"u": {"1000"}, "x": {"1"}})
	exp, _ := strconv.ParseInt(inv3.Tags.Find("expiration")[1], 10, 64)
	waitUntilPast(t, exp)
	if ok, msg := joinWith(e, erin, inv3.Tags.Find("claim")[1]); ok || msg != "restricted: that invite code expired at "+time.Unix(exp, 0).UTC().Format(time.RFC3339)+"; ask for a new one" {
		t.Errorf("an expired claim: %v %q", ok, msg)
	}

	// the member list (13534, hub-signed) names the admin and both new members
	lists, _ := a.req("ml", nostr.Filter{Kinds: []int{13534}})
	m := newest(lists, 13534)
	for _, pk := range []string{admin.pk, carol.pk, dave.pk} {
		if m == nil || m.PubKey != self || !slices.ContainsFunc(m.Tags, func(tg nostr.Tag) bool { return len(tg) >= 2 && tg[0] == "member" && tg[1] == pk }) {
			t.Errorf("13534 lacks %s: %v", pk[:8], m)
		}
	}

	// leaving: dave asks, the hub signs the 8001 and cuts dave off; the
	// admin cannot leave
	leaveAndClosed(t, d, dave)
	rms, _ := a.req("rms", nostr.Filter{Kinds: []int{8001}, Tags: nostr.TagMap{"p": {dave.pk}}})
	if len(rms) != 1 || rms[0].PubKey != self {
		t.Errorf("dave's 8001: %v", rms)
	}
	if ok, msg := a.publish(admin.sign(t, 28936, "")); ok || msg != "restricted: the hub's configured admin cannot leave its hub" {
		t.Errorf("the admin's leave request: %v %q", ok, msg)
	}

	// the log alone rebuilds it: replay --verify finds no difference, and a
	// hub that starts on the log with another key of its own (a second
	// instance on a shared log, a lost hub.key) keeps carol
	out, errOut, code := newCLI(t).run("admin", "replay", "--verify", "--data", data)
	if code != 0 || !strings.Contains(out, "; 0 differences") {
		t.Errorf("hive admin replay --verify: exit %d\n%s%s", code, out, errOut)
	}
	p.kill9()
	if err := os.Remove(filepath.Join(data, "hub.key")); err != nil {
		t.Fatal(err)
	}
	p2 := startProc(t, data, freeAddr(t), "--invites", "members")
	if fetchNIP11(t, p2.URL).Self == self {
		t.Fatal("the restarted hub kept its key")
	}
	c2 := p2.as(t, carol)
	if _, closed := c2.req("after-restart", nostr.Filter{Kinds: []int{9}}); closed != "" {
		t.Errorf("carol after a restart with a new hub key: %q", closed)
	}
}

// leaveAndClosed sends k's leave request on r: the hub answers OK true
// "info: you left the hub" and closes the connection with "restricted: you
// left the hub" (the close may overtake the OK: the cut-off follows the
// commit, as an admin's 8001's does).
func leaveAndClosed(t testing.TB, r *raw, k key) {
	t.Helper()
	ev := k.sign(t, 28936, "")
	r.send([]any{"EVENT", ev})
	for {
		r.ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, b, err := r.ws.ReadMessage()
		if ce, ok := err.(*websocket.CloseError); ok {
			if ce.Code != websocket.ClosePolicyViolation || ce.Text != "restricted: you left the hub" {
				t.Fatalf("closed after a leave request: %d %q", ce.Code, ce.Text)
			}
			return
		}
		if err != nil {
			t.Fatalf("after a leave request: %v", err)
		}
		var m []json.RawMessage
		if json.Unmarshal(b, &m) == nil && len(m) == 4 && str(m[0]) == "OK" && str(m[1]) == ev.ID {
			if string(m[2]) != "true" || str(m[3]) != "info: you left the hub" {
				t.Fatalf("the leave request's OK: %s", b)
			}
		}
	}
}

// protected reports whether ev carries NIP-70's ["-"].
func protected(ev *nostr.Event) bool {
	return slices.ContainsFunc(ev.Tags, func(tg nostr.Tag) bool { return len(tg) == 1 && tg[0] == "-" })
}

// waitUntilPast returns once the wall clock is past the unix second at
// (a claim's explicit expiration), at most 3 s from now.
func waitUntilPast(t testing.TB, at int64) {
	t.Helper()
	d := time.Until(time.Unix(at+1, 0))
	if d > 3*time.Second {
		t.Fatalf("expiration %d is %s away", at, d)
	}
	<-time.After(d)
}

// Default --invites admins: a member who is not an admin asks for an invite
// and is told why not, bad #u refused with the reason, a stranger told to
// ask an admin, then admitted by the admin's claim. (--invites off:
// TestRefusedAuthSaysWhy.)
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
	stranger := newKey(t)
	g := guest(t, h.URL, stranger, strangerReason(stranger, "a hub admin"))
	if _, closed := g.req("r", nostr.Filter{Kinds: []int{9}}); closed != strangerReason(stranger, "a hub admin") {
		t.Errorf("a guest's REQ: %q", closed)
	}
	// the admin's claim admits it (over the PostgreSQL log too: make test's
	// second run), and the claim's one use is spent
	inv, closed := askInvite(t, a, nil)
	if closed != "" {
		t.Fatal(closed)
	}
	if ok, msg := joinWith(g, stranger, inv.Tags.Find("claim")[1]); !ok {
		t.Fatalf("join: %q", msg)
	}
	if _, closed := g.req("r2", nostr.Filter{Kinds: []int{9}}); closed != "" {
		t.Errorf("REQ after joining: %q", closed)
	}
	late := newKey(t)
	if ok, msg := joinWith(guest(t, h.URL, late, strangerReason(late, "a hub admin")), late, inv.Tags.Find("claim")[1]); ok || msg != "restricted: that invite code has been used 1 of 1 times; ask for a new one" {
		t.Errorf("a second use of a one-use claim: %v %q", ok, msg)
	}
}

// A guest costs the hub what an unauthenticated connection does: it keeps
// its slot under --max-unauth-per-ip (a third connection from the address
// is refused while two guests wait) until a join admits it, and it is
// closed at --auth-timeout with the reason.
func TestNIP43GuestCostsNoMore(t *testing.T) {
	data := t.TempDir()
	p := startProc(t, data, freeAddr(t), "--max-unauth-per-ip", "2", "--auth-timeout", "2s")
	admin := readKeyFile(t, data+"/admin.key")
	a := p.as(t, admin)
	inv, _ := askInvite(t, a, nil)
	k1, k2 := newKey(t), newKey(t)
	g1 := guest(t, p.URL, k1, strangerReason(k1, "a hub admin"))
	g2 := guest(t, p.URL, k2, strangerReason(k2, "a hub admin"))
	if ws, status, body := dialStatus(p.URL); ws != nil || status != http.StatusServiceUnavailable {
		t.Fatalf("a third connection beside two guests with --max-unauth-per-ip 2: %v %d %q", ws != nil, status, body)
	}
	if ok, msg := joinWith(g1, k1, inv.Tags.Find("claim")[1]); !ok {
		t.Fatalf("join: %q", msg)
	}
	ws, status, body := dialStatus(p.URL)
	if ws == nil {
		t.Fatalf("after a guest joined, a new connection is still refused: %d %q", status, body)
	}
	ws.Close()
	g2.ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := g2.ws.ReadMessage()
		if ce, ok := err.(*websocket.CloseError); ok {
			if ce.Text != "restricted: not admitted within 2s of connecting; a key that is not a member may only join with an invite" {
				t.Fatalf("a guest at the auth timeout: closed %d %q", ce.Code, ce.Text)
			}
			break
		}
		if err != nil {
			t.Fatalf("a guest at the auth timeout: %v", err)
		}
	}
}
