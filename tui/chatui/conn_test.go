package chatui

import (
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
)

// aliceDevice is a paired device of alice's (the device clause, expiring
// at expiry) connected to the world's hub.
func aliceDevice(t *testing.T, w *world, expiry time.Time) (*client.Client, identity.Keys) {
	t.Helper()
	dev, _ := identity.GenerateKeys()
	conds := identity.Conditions{}.WithNotBefore(time.Now().Add(-time.Minute).Unix()).WithExpiry(expiry.Unix())
	tag, err := identity.AttestDevice(w.aliceKeys.SecretHex, dev.PublicHex, conds)
	if err != nil {
		t.Fatal(err)
	}
	return w.connectTagged(t, dev, tag), dev
}

// A device revoked by its owner while hive chat runs on it: the chat says
// so in one line (what to do, not the hub's log text) and the status line
// says it is not connected; it does not show "reconnecting" for ever.
func TestRevokedDeviceOneLine(t *testing.T) {
	w := newWorld(t)
	dc, dev := aliceDevice(t, w, time.Now().Add(time.Hour))
	tm := inGeneral(t, dc, Options{})
	rev, err := identity.NewRevocation(w.aliceKeys, dev.PublicHex, "lost phone", time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.alice.Publish(ctxT(t), *rev); err != nil {
		t.Fatal(err)
	}
	waitOut(t, tm, "✗ this device was revoked by its owner: pair it again", "✗ not connected (refused)")
}

// A device whose attestation expires: the hub closes it at the expiry,
// and the chat says in one line to ask for a fresh one.
func TestExpiredAttestationOneLine(t *testing.T) {
	w := newWorld(t)
	dc, _ := aliceDevice(t, w, time.Now().Add(3*time.Second))
	tm := inGeneral(t, dc, Options{})
	waitOut(t, tm, "✗ your owner's attestation expired: ask for a fresh one", "✗ not connected (refused)")
}

// A member removed from a private channel while it is open (the new
// roster is no longer readable to them): what is sent there gets the hub's
// reason on one line, the text back in the composer, and the channel stays
// in view marked as left.
func TestChannelYouCannotWriteTo(t *testing.T) {
	w := newWorld(t)
	if _, err := w.alice.Publish(ctxT(t), client.ChannelCreate("secret", "secret", client.Private)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.alice.Publish(ctxT(t), client.ChannelAdd("secret", w.bob.PublicKey(), "")); err != nil {
		t.Fatal(err)
	}
	tm := chatAs(t, w.bob, Options{Channel: "secret"})
	waitOut(t, tm, "#secret", "● connected")
	if _, err := w.alice.Publish(ctxT(t), client.ChannelRemove("secret", w.bob.PublicKey())); err != nil {
		t.Fatal(err)
	}
	run(t, tm, "still here?", "✗ not sent: restricted: not a member of channel secret", "> still here?", "secret (left)")
}
