package test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/pairing"
	"github.com/nbd-wtf/go-nostr"
)

// The whole story through the real binaries over wss with a self-signed,
// pinned certificate: hive pair writes a PNG, hive join reads it, both show
// the same SAS, both confirm; the new device has a profile, authenticates
// and posts. Then the owner lists and revokes it: its connection is closed
// within a second and its next AUTH is refused.
func TestPairJoinAuthPostRevoke(t *testing.T) {
	h := startPairingHub(t)
	owner := h.ownerClient(t)
	if _, err := owner.Publish(ctxT(t), client.ChannelCreate("laptops", "laptops", client.Open)); err != nil {
		t.Fatal(err)
	}
	laptop := newCLI(t)
	png := filepath.Join(t.TempDir(), "code.png")
	pair := h.owner.start("pair", "--png", png, "--expires", "30d")
	pair.next("uri")
	start := time.Now()
	join := laptop.start("join", "--qr", png, "--profile", "laptop")
	sasJoin := join.next("sas")["sas"]
	if sasPair := pair.next("sas")["sas"]; sasPair != sasJoin || len(sasJoin.(string)) != 6 {
		t.Fatalf("SAS: pair %v, join %v", sasPair, sasJoin)
	}
	join.answer("y")
	pair.answer("y")
	joined := join.next("done")
	paired := pair.next("done")
	if c := join.exit(); c != 0 {
		t.Fatalf("join exit %d: %s", c, join.errors())
	}
	if c := pair.exit(); c != 0 {
		t.Fatalf("pair exit %d: %s", c, pair.errors())
	}
	if joined["device"] != paired["device"] || joined["owner"] != owner.PublicKey() {
		t.Fatalf("join %v, pair %v", joined, paired)
	}
	if exp := int64(joined["expires_at"].(float64)); exp < time.Now().Add(30*24*time.Hour-time.Minute).Unix() || exp > time.Now().Add(30*24*time.Hour).Unix() {
		t.Fatalf("expires_at %d is not 30 days from now", exp)
	}
	pr := profileOf(t, laptop, "laptop")
	if pr.Pin != h.pin || len(pr.Hubs) != 1 || pr.Hubs[0] != h.hub.URL || pr.Attestation == "" {
		t.Fatalf("profile %+v", pr)
	}
	if err := identity.CheckKeyFileMode(pr.Key); err != nil {
		t.Fatal(err)
	}
	// The device posts as itself, attested by the owner.
	ctx := ctxT(t)
	dev, err := dialProfile(ctx, t, pr)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	// It acts as its owner, who is a member already (spec/auth.md).
	var re *client.RefusedError
	if _, err := dev.Publish(ctx, client.ChannelJoin("laptops")); !errors.As(err, &re) || re.Reason != "duplicate: already a member of laptops" {
		t.Fatalf("the device joins its owner's channel: %v", err)
	}
	post, err := dev.Publish(ctx, client.Message("laptops", "hello from the new laptop"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("hive join start -> first authenticated post acknowledged: %s (join's own elapsed_ms to its first acknowledged event: %v)", time.Since(start).Round(time.Millisecond), joined["elapsed_ms"])
	if post.PubKey != joined["device"] {
		t.Fatal("the post is not by the device key")
	}
	// Listed as a device, not as an agent.
	if out := h.owner.ok("device", "list", "--json"); !hasSubstr(out, joined["device"].(string)) || !hasSubstr(out, `"revoked":false`) {
		t.Fatalf("device list: %s", out)
	}
	// Revoke: a live connection of the device is closed within a second.
	live := rawDeviceConn(t, pr)
	revStart := time.Now()
	h.owner.ok("device", "revoke", "--device", joined["device_npub"].(string))
	select {
	case <-live.Context().Done():
		t.Logf("revoked device kicked %s after `hive device revoke` started", time.Since(revStart).Round(time.Millisecond))
	case <-time.After(time.Until(revStart.Add(time.Second)) + 500*time.Millisecond):
		t.Fatal("the revoked device's connection is still open")
	}
	if d := time.Since(revStart); d > 1500*time.Millisecond {
		t.Fatalf("kick took %s", d)
	}
	if _, err := dialProfile(ctx, t, pr); !errors.Is(err, client.ErrAuth) || !hasSubstr(err.Error(), "revoked") {
		t.Fatalf("AUTH after revocation: %v", err)
	}
	if out := h.owner.ok("device", "list", "--json"); !hasSubstr(out, `"revoked":true`) {
		t.Fatalf("device list after revoke: %s", out)
	}
}

// rawDeviceConn is one authenticated go-nostr connection of a device (no
// reconnects), to watch it being closed.
func rawDeviceConn(t *testing.T, pr client.Profile) *nostr.Relay {
	t.Helper()
	k, _ := identity.LoadKeyFile(pr.Key, nil)
	tag, _ := identity.ParseTagJSON(pr.Attestation)
	tc, _ := tlspin.ClientConfig(pr.Pin)
	r := nostr.NewRelay(context.Background(), pr.Hubs[0])
	if err := r.ConnectWithTLS(ctxT(t), tc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	var err error
	for i := 0; i < 40; i++ {
		if err = r.Auth(ctxT(t), func(ev *nostr.Event) error { ev.Tags = append(ev.Tags, tag); return ev.Sign(k.SecretHex) }); err == nil {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("device AUTH: %v", err)
	return nil
}

// A "no" on either side ends both, and the joining device writes nothing.
func TestPairDenied(t *testing.T) {
	h := startPairingHub(t)
	for _, who := range []string{"source", "target"} {
		laptop := newCLI(t)
		pair, join, _ := pairAndJoin(t, h, laptop)
		if who == "source" {
			join.answer("y")
			pair.answer("n")
		} else {
			pair.answer("y") // the payload goes out, and must not be used
			time.Sleep(300 * time.Millisecond)
			join.answer("n")
		}
		pe, je := pair.next("error"), join.next("error")
		if pc, jc := pair.exit(), join.exit(); pc != 3 || jc != 3 {
			t.Fatalf("%s said no: exit codes pair %d join %d (%v / %v)", who, pc, jc, pe, je)
		}
		if !hasSubstr(pe["error"].(string)+je["error"].(string), "user_denied") {
			t.Fatalf("%s said no: %v / %v", who, pe, je)
		}
		noProfiles(t, laptop)
	}
}

// The code names a pin; a hub presenting another certificate is refused
// before anything is exchanged.
func TestJoinWrongPin(t *testing.T) {
	h := startPairingHub(t)
	pair := h.owner.start("pair")
	uri := pair.next("uri")["uri"].(string)
	u, err := pairing.ParseURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	u.Pin = tlspin.FromSPKI([]byte("another key"))
	bad := u.String()
	laptop := newCLI(t)
	out, errOut, code := laptop.run("join", bad)
	if code != 3 || !hasSubstr(errOut, "pin mismatch") {
		t.Fatalf("join with a wrong pin: exit %d\n%s%s", code, out, errOut)
	}
	noProfiles(t, laptop)
	pair.quiet(300 * time.Millisecond) // the source saw nothing
}

// An unused code expires: hive pair reports it, and a late join says so.
func TestPairTimeout(t *testing.T) {
	h := startPairingHub(t)
	pair := h.owner.start("pair", "--timeout", "2s")
	uri := pair.next("uri")["uri"].(string)
	if ev := pair.next("error"); !hasSubstr(ev["error"].(string), "expired") {
		t.Fatalf("pair: %v", ev)
	}
	if c := pair.exit(); c != 6 {
		t.Fatalf("pair exit %d", c)
	}
	laptop := newCLI(t)
	_, errOut, code := laptop.run("join", uri, "--timeout", "2s")
	if code != 6 || !hasSubstr(errOut, "expired") {
		t.Fatalf("late join: exit %d %s", code, errOut)
	}
}

// Bad codes get clear errors before any network use.
func TestJoinBadCodes(t *testing.T) {
	laptop := newCLI(t)
	for _, c := range []struct{ arg, want string }{
		{"nostrpair://abc?secret=00", "64 lowercase hex"},
		{"https://example.com", "must start with nostrpair://"},
	} {
		_, errOut, code := laptop.run("join", c.arg)
		if code != 1 || !hasSubstr(errOut, c.want) {
			t.Errorf("join %q: exit %d %s", c.arg, code, errOut)
		}
	}
	_, errOut, code := laptop.run("join", "--qr", filepath.Join(t.TempDir(), "missing.png"))
	if code != 4 {
		t.Errorf("missing QR file: exit %d %s", code, errOut)
	}
}

// hive pair proves the owner key against the hub before it shows a code:
// a key the hub does not admit, or an attested (device) key, gets no code.
func TestPairChecksTheOwnerFirst(t *testing.T) {
	h := startPairingHub(t)
	stranger := newCLI(t)
	stranger.ok("profile", "add", "me", "--hub", h.hub.URL, "--pin", h.pin, "--new-key")
	out, errOut, code := stranger.run("pair", "--json")
	if code != 3 || hasSubstr(out, "nostrpair://") || !hasSubstr(errOut, "not a member") {
		t.Fatalf("a non-member's pair: exit %d\n%s%s", code, out, errOut)
	}
	// A paired device cannot pair further devices (NIP-OA depth 1).
	laptop := newCLI(t)
	pair, join, _ := pairAndJoin(t, h, laptop)
	pair.answer("y")
	join.answer("y")
	join.next("done")
	pair.next("done")
	out, errOut, code = laptop.run("pair")
	if code != 1 || hasSubstr(out, "nostrpair://") || !hasSubstr(errOut, "itself attested") {
		t.Fatalf("a device's pair: exit %d\n%s%s", code, out, errOut)
	}
}
