package test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// pairCLI enrols a new device of h's owner with the real hive pair and
// hive join (both humans say yes) and returns the device's cli (its
// current profile is the joined one) and join's done event.
func pairCLI(t *testing.T, h *pairingHub) (*cli, map[string]any) {
	t.Helper()
	dev := newCLI(t)
	pair, join, _ := pairAndJoin(t, h, dev, "--expires", "1d")
	join.answer("y")
	pair.answer("y")
	done := join.next("done")
	pair.next("done")
	if c := join.exit(); c != 0 {
		t.Fatalf("join exit %d: %s", c, join.errors())
	}
	if c := pair.exit(); c != 0 {
		t.Fatalf("pair exit %d: %s", c, pair.errors())
	}
	return dev, done
}

// Issue 17 item 2, acceptance: a device paired with hive pair / hive join
// reads and writes its owner's private channel; the owner's other device
// edits its message; after hive device revoke the device can do none of it.
func TestDeviceActsAsOwnerThroughCLI(t *testing.T) {
	h := startPairingHub(t)
	h.owner.ok("channel", "create", "vault", "--private")
	h.owner.ok("send", "vault", "the owner's secret")
	if _, err := h.ownerClient(t).Publish(ctxT(t), nostr.Event{Kind: 0, Content: `{"name":"olivia"}`}); err != nil {
		t.Fatal(err)
	}
	laptop, ljoin := pairCLI(t, h)
	phone, _ := pairCLI(t, h)

	read := rows(t, laptop.ok("read", "vault", "--json"))
	if len(read) != 1 || read[0].Text != "the owner's secret" {
		t.Fatalf("the laptop reads the owner's private channel: %+v", read)
	}
	sent := rows(t, laptop.ok("send", "vault", "from the laptop", "--json"))
	if len(sent) != 1 || sent[0].Author != ljoin["device"] {
		t.Fatalf("the laptop's message: %+v", sent)
	}
	phone.ok("edit", sent[0].ID, "fixed on the phone")
	firstEdit := time.Now().Unix() // that edit's created_at is no later
	out := h.owner.ok("read", "vault", "--json")
	got := rows(t, out)
	if len(got) != 2 || got[1].ID != sent[0].ID || got[1].Text != "fixed on the phone" || !got[1].Edited {
		t.Fatalf("the owner reads: %+v", got)
	}
	// The device's message shows with the owner's name (and the device's).
	var shown struct{ ID, Name, Label string }
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if json.Unmarshal([]byte(l), &shown) == nil && shown.ID == sent[0].ID {
			break
		}
	}
	if shown.Name != "olivia" || !strings.HasPrefix(shown.Label, "olivia (") {
		t.Fatalf("the laptop's message shows as %+v, want olivia\n%s", shown, out)
	}
	// send says who sent it: the owner, from which device
	if said := laptop.ok("send", "vault", "who am I?"); !strings.HasSuffix(said, " to vault as "+shown.Label+"\n") {
		t.Fatalf("the laptop's send said %q, want it sent as %s", said, shown.Label)
	}

	h.owner.ok("device", "revoke", "--device", ljoin["device_npub"].(string))
	for _, args := range [][]string{{"read", "vault"}, {"send", "vault", "after the revocation"}, {"edit", sent[0].ID, "again"}} {
		out, errOut, code := laptop.run(args...)
		if code != 3 || !strings.Contains(errOut, "this attestation was revoked by its owner") {
			t.Fatalf("revoked laptop: hive %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	// The owner's other device still edits the revoked device's message (a
	// second later: the newest edit wins by created_at; the revocation's
	// steps took that long already, as a rule).
	for time.Now().Unix() <= firstEdit {
		time.Sleep(20 * time.Millisecond)
	}
	phone.ok("edit", sent[0].ID, "kept by the phone")
	if got := rows(t, h.owner.ok("read", "vault", "--json")); len(got) != 3 || got[1].Text != "kept by the phone" {
		t.Fatalf("after the revocation the owner reads: %+v", got)
	}
}
