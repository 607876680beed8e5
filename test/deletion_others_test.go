package test

import (
	"path/filepath"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// A member's NIP-09 deletion (kind 5) naming another member's message or
// reaction is refused by the real hub, and `hive read` still shows both:
// before the fix the hub stored it and every client hid them. Over the
// PostgreSQL log too when HIVE_TEST_STORE=postgres.
func TestDeletionOfOthersEventsRefused(t *testing.T) {
	var store []string
	if onPostgres() {
		store = []string{"--store", pg.DSN(t)}
	}
	h := startHubProcOn(t, store)
	w := startWriteTeam(t, h)
	w.b.must(w.bob.sign(t, 9021, "", nostr.Tag{"h", "pub"}))
	w.m.must(w.mallory.sign(t, 9021, "", nostr.Tag{"h", "pub"}))
	msg := w.a.must(w.alice.sign(t, 9, "hello from alice", nostr.Tag{"h", "pub"}))
	react := w.b.must(w.bob.sign(t, 7, "+", nostr.Tag{"h", "pub"}, nostr.Tag{"e", msg.ID}))

	want := "restricted: a deletion may name only your own events; " + msg.ID +
		" is another member's (the author's owner or a channel admin deletes it with kind 9005)"
	if ok, got := w.m.publish(w.mallory.sign(t, 5, "", nostr.Tag{"e", msg.ID}, nostr.Tag{"e", react.ID})); ok || got != want {
		t.Errorf("mallory's deletion of alice's message: ok=%v %q, want the refusal %q", ok, got, want)
	}
	wantReact := "restricted: a deletion may name only your own events; " + react.ID +
		" is another member's (the author's owner or a channel admin deletes it with kind 9005)"
	if ok, got := w.m.publish(w.mallory.sign(t, 5, "", nostr.Tag{"e", react.ID})); ok || got != wantReact {
		t.Errorf("mallory's deletion of bob's reaction: ok=%v %q, want the refusal %q", ok, got, wantReact)
	}

	// A deletion naming an id the hub does not have yet is let through, and
	// never hides the event another key later sends with that id.
	early := w.alice.sign(t, 9, "sent after mallory named it", nostr.Tag{"h", "pub"})
	w.m.must(w.mallory.sign(t, 5, "", nostr.Tag{"e", early.ID}))
	w.a.must(early)

	c := newCLI(t)
	bobKeys, _ := identity.KeysFromSecretHex(w.bob.sk)
	keyFile := filepath.Join(t.TempDir(), "bob.key")
	if err := identity.SaveKeyFile(keyFile, bobKeys, identity.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	c.ok("profile", "add", "bob", "--hub", h.URL, "--key", keyFile)
	got := rows(t, c.ok("read", "pub", "--profile", "bob", "--json"))
	byID := map[string]rowJSON{}
	for _, r := range got {
		byID[r.ID] = r
	}
	if m, e := byID[msg.ID], byID[early.ID]; len(got) != 2 || m.Text != "hello from alice" || m.reactions()["+"] != 1 ||
		e.Text != "sent after mallory named it" {
		t.Fatalf("bob's read of pub: %+v, want alice's two messages, the first with bob's reaction", got)
	}

	// Alice's own deletion still hides her message.
	w.a.must(w.alice.sign(t, 5, "", nostr.Tag{"e", msg.ID}))
	if got := rows(t, c.ok("read", "pub", "--profile", "bob", "--json")); len(got) != 1 || got[0].ID != early.ID {
		t.Fatalf("bob's read of pub after alice's own deletion: %+v, want only %s", got, early.ID)
	}
	h.verifyReplay(t)
}
