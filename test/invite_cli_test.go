package test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hive invite and hive profile add --invite against the real binary: the
// admin's invite admits a new key from its link alone (the hub taken from
// the link), which then lists the admin and itself in hive member list; the
// used-up claim, a forged one and a member's hive invite (--invites admins)
// are refused with the hub's reason, exit 3, and write no profile or key.
func TestInviteCLIBinary(t *testing.T) {
	data := t.TempDir()
	p := startProc(t, data, freeAddr(t))
	admin := newCLI(t)
	admin.ok("profile", "add", "admin", "--hub", p.URL, "--key", filepath.Join(data, "admin.key"))
	var inv struct {
		Claim, Link, Hub string
		Uses             int
		Expires          string
	}
	if err := json.Unmarshal([]byte(admin.ok("invite", "--json")), &inv); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(inv.Link)
	if err != nil || inv.Uses != 1 || inv.Hub != p.URL || u.Query().Get("c") != inv.Claim || u.Query().Get("r") != p.URL || u.Scheme != "http" {
		t.Fatalf("hive invite --json: %+v (link %v)", inv, err)
	}
	text := admin.ok("invite", "--uses", "3", "--expires", "1h")
	if !strings.Contains(text, "admits 3 keys until ") || !strings.Contains(text, "hive profile add NAME --hub "+p.URL+" --new-key --invite '") {
		t.Errorf("hive invite:\n%s", text)
	}

	bob := newCLI(t)
	out := bob.ok("profile", "add", "bob", "--new-key", "--invite", inv.Link)
	if !strings.Contains(out, "joined the hub with the invite") {
		t.Errorf("profile add --invite:\n%s", out)
	}
	var bobView struct{ Npub string }
	json.Unmarshal([]byte(bob.ok("profile", "add", "bob", "--json")), &bobView)
	members := bob.ok("member", "list")
	adminNpub := npubOf(readKeyFile(t, filepath.Join(data, "admin.key")).pk)
	for _, want := range []string{adminNpub, bobView.Npub} {
		if want == "" || !strings.Contains(members, want) {
			t.Errorf("hive member list (as bob) lacks %q:\n%s", want, members)
		}
	}

	carol := newCLI(t)
	e := carol.fails(t, 3, "profile", "add", "carol", "--new-key", "--invite", inv.Link)
	if !strings.HasSuffix(e.Message, "restricted: that invite code has been used 1 of 1 times; ask for a new one") || !strings.Contains(e.Hint, "new invite link") {
		t.Errorf("a used-up invite: %+v", e)
	}
	forged := []byte(inv.Claim)
	forged[40] ^= 1
	e = carol.fails(t, 3, "profile", "add", "carol", "--hub", p.URL, "--new-key", "--invite", string(forged))
	if !strings.HasSuffix(e.Message, "restricted: that is not a valid invite code for this hub") {
		t.Errorf("a forged invite: %+v", e)
	}
	if list := carol.ok("profile", "list", "--json"); strings.Contains(list, "carol") {
		t.Errorf("a refused invite wrote a profile: %s", list)
	}
	if _, err := os.Stat(filepath.Join(carol.home, "keys", "carol.key")); !os.IsNotExist(err) {
		t.Errorf("a refused invite wrote a key file: %v", err)
	}
	e = bob.fails(t, 3, "invite")
	if !strings.HasSuffix(e.Message, "restricted: only hub admins make invites on this hub (hive serve --invites admins)") || !strings.Contains(e.Hint, "ask a hub admin for an invite") {
		t.Errorf("a member's hive invite: %+v", e)
	}
	bob.fails(t, 1, "invite", "--uses", "0")
	carol.fails(t, 1, "profile", "add", "carol", "--new-key", "--invite", "https://x.example/?r=wss://x.example")
	if _, errOut, code := carol.run("serve", "--data", t.TempDir(), "--addr", freeAddr(t), "--invites", "everyone"); code != 1 || !strings.Contains(errOut, `--invites "everyone": want members, admins or off`) {
		t.Errorf("hive serve --invites everyone: exit %d\n%s", code, errOut)
	}
}

// hive invite --revoke against the real binary: the admin revokes one of two
// invites (by its link); a key joining with it is refused with the reason,
// exit 3, while the other invite still admits a key, also over a raw NIP-43
// join request; the key the revoked invite admitted before stays a member;
// a member may not revoke, and a revocation of something that is no claim
// is a usage error.
func TestInviteRevokeBinary(t *testing.T) {
	data := t.TempDir()
	p := startProc(t, data, freeAddr(t))
	admin := newCLI(t)
	admin.ok("profile", "add", "admin", "--hub", p.URL, "--key", filepath.Join(data, "admin.key"))
	type invite struct{ ID, Claim, Link string }
	var first, second invite
	json.Unmarshal([]byte(admin.ok("invite", "--uses", "5", "--json")), &first)
	json.Unmarshal([]byte(admin.ok("invite", "--uses", "5", "--json")), &second)
	if len(first.ID) != 16 || first.ID == second.ID {
		t.Fatalf("hive invite --json ids: %q %q", first.ID, second.ID)
	}

	early := newCLI(t)
	early.ok("profile", "add", "early", "--new-key", "--invite", first.Link)
	out := admin.ok("invite", "--revoke", first.Link)
	if !strings.Contains(out, "revoked invite "+first.ID+": it admits no more keys") {
		t.Errorf("hive invite --revoke:\n%s", out)
	}

	late := newCLI(t)
	e := late.fails(t, 3, "profile", "add", "late", "--new-key", "--invite", first.Link)
	if !strings.HasSuffix(e.Message, "restricted: that invite code was revoked by a hub admin; ask for a new one") {
		t.Errorf("a revoked invite: %+v", e)
	}
	guestKey := newKey(t)
	r := guest(t, p.URL, guestKey, strangerReason(guestKey, "a hub admin"))
	if ok, msg := joinWith(r, guestKey, first.Claim); ok || msg != "restricted: that invite code was revoked by a hub admin; ask for a new one" {
		t.Errorf("a raw join request with the revoked claim: %v %q", ok, msg)
	}
	if ok, msg := joinWith(r, guestKey, second.Claim); !ok {
		t.Errorf("the other invite, after one was revoked: %q", msg)
	}
	late.ok("profile", "add", "late", "--new-key", "--invite", second.Link)
	members := admin.ok("member", "list")
	for name, c := range map[string]*cli{"early": early, "late": late} {
		if n := profileNpub(t, c, name); n == "" || !strings.Contains(members, n) {
			t.Errorf("hive member list lacks %s:\n%s", n, members)
		}
	}

	e = late.fails(t, 3, "invite", "--revoke", second.ID)
	if !strings.HasSuffix(e.Message, "restricted: only a hub admin revokes invites") {
		t.Errorf("a member's hive invite --revoke: %+v", e)
	}
	admin.fails(t, 1, "invite", "--revoke", "not-a-claim")
}

// profileNpub is the npub of c's profile name.
func profileNpub(t *testing.T, c *cli, name string) string {
	t.Helper()
	var p struct{ Npub string }
	json.Unmarshal([]byte(c.ok("profile", "add", name, "--json")), &p)
	return p.Npub
}
