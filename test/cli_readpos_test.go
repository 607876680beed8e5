package test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// bob reads a channel with the real binary, then alice writes in the second
// of bob's newest row, after his read (a script or an agent answering at
// once; here with an explicit created_at, so the test needs no clock): it
// is unread for bob, and a mention, until he reads again
// (spec/channels.md, "Read state").
func TestReadThenAnswerInTheSameSecond(t *testing.T) {
	data := filepath.Join(t.TempDir(), "hub")
	p, pin := startTLSHub(t, data)
	c := newCLI(t)
	c.ok("profile", "add", "admin", "--hub", p.URL, "--pin", pin, "--key", filepath.Join(data, "admin.key"))
	alice, bob := newKeyProfile(c, p.URL, pin, "alice"), newKeyProfile(c, p.URL, pin, "bob")
	c.ok("member", "add", alice.Npub, "--profile", "admin")
	c.ok("member", "add", bob.Npub, "--profile", "admin")
	c.ok("channel", "create", "General", "--profile", "alice")
	c.ok("channel", "join", "general", "--profile", "bob")
	first := rows(t, c.ok("send", "general", "first", "--profile", "alice", "--json"))[0]
	unread := func() (n, mentions int) {
		t.Helper()
		for _, l := range strings.Split(strings.TrimSpace(c.ok("channel", "list", "--profile", "bob", "--json")), "\n") {
			var ch struct {
				ID               string
				Unread, Mentions *int
			}
			if json.Unmarshal([]byte(l), &ch) == nil && ch.ID == "general" && ch.Unread != nil && ch.Mentions != nil {
				return *ch.Unread, *ch.Mentions
			}
		}
		t.Fatal("bob's channel list has no general")
		return
	}
	if n, _ := unread(); n != 1 {
		t.Fatalf("before the read: %d unread, want 1", n)
	}
	if got := rows(t, c.ok("read", "general", "--profile", "bob", "--json")); len(got) != 1 || got[0].ID != first.ID {
		t.Fatalf("bob's read: %+v", got)
	}
	if n, _ := unread(); n != 0 {
		t.Fatalf("after the read: %d unread", n)
	}

	ctx := ctxT(t)
	ac, err := dialProfile(ctx, t, profileOf(t, c, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close()
	_, bobPK, err := nip19.Decode(bob.Npub)
	if err != nil {
		t.Fatal(err)
	}
	late := client.Message("general", "@bob in the same second", bobPK.(string))
	late.CreatedAt = nostr.Timestamp(first.CreatedAt) // the second of bob's newest row, after his read
	late, err = ac.Publish(ctx, late)
	if err != nil {
		t.Fatal(err)
	}
	if n, m := unread(); n != 1 || m != 1 {
		t.Fatalf("alice's message in the second of bob's read, after it: %d unread, %d mentions; want 1, 1", n, m)
	}

	// bob reads again: the position names both rows of that second
	c.ok("read", "general", "--profile", "bob", "--json")
	if n, m := unread(); n != 0 || m != 0 {
		t.Fatalf("after the second read: %d unread, %d mentions", n, m)
	}
	bc, err := dialProfile(ctx, t, profileOf(t, c, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	rs, err := bc.ReadStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := kinds.ReadThrough(late.CreatedAt, []string{first.ID, late.ID}); !rs["general"].Equal(want) {
		t.Fatalf("bob's position %q, want %q", rs["general"], want)
	}
}

// newKeyProfile adds the profile name with a new key for the hub at url
// (pinned) and returns its npub.
func newKeyProfile(c *cli, url, pin, name string) (p struct{ Npub string }) {
	json.Unmarshal([]byte(c.ok("profile", "add", name, "--hub", url, "--pin", pin, "--new-key", "--json")), &p)
	return p
}
