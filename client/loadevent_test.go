package client_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
)

// LoadEvent (one REQ for the event and its overlays, then their
// deletions) shows a message as Event plus LoadOverlays does: the newest
// edit's text, a retracted reaction gone, a kept one counted (real hub).
func TestLoadEventAppliesOverlays(t *testing.T) {
	_, admin := startHubAdmin(t)
	ctx := ctxT(t, 10*time.Second)
	mustPublish(t, ctx, admin, client.ChannelCreate("general", "General", client.Open))
	msg := mustPublish(t, ctx, admin, client.Message("general", "first text"))
	mustPublish(t, ctx, admin, client.Edit(msg, "second text"))
	mustPublish(t, ctx, admin, client.Reaction(msg, "👍"))
	gone := mustPublish(t, ctx, admin, client.Reaction(msg, "👀"))
	mustPublish(t, ctx, admin, client.Retract(gone.ID))
	m := admin.NewModel()
	ev, err := admin.LoadEvent(ctx, m, msg.ID)
	if err != nil || ev.ID != msg.ID {
		t.Fatalf("LoadEvent: %v %s", err, ev.ID)
	}
	r, ok := m.Row(msg.ID)
	if !ok || r.Text != "second text" || !r.Edited || len(r.Reactions) != 1 || r.Reactions[0].Emoji != "👍" {
		t.Fatalf("row after LoadEvent: %+v", r)
	}
	unknown := gone.ID[:62] + "00"
	if _, err := admin.LoadEvent(ctx, admin.NewModel(), unknown); !errors.Is(err, client.ErrNotFound) || !strings.Contains(err.Error(), "no event "+unknown+" that you can read") {
		t.Fatalf("LoadEvent of an unknown id: %v", err)
	}
}

// With Options.ProfileCache, LoadNames answers from the profiles it
// fetched while they are fresh: a rename shows only to a client without
// the cache (real hub).
func TestProfileCache(t *testing.T) {
	th, admin := startHubAdmin(t)
	bob := th.member(t, admin)
	bc := connect(t, th.URL, bob, client.Options{})
	ctx := ctxT(t, 10*time.Second)
	first, err := bc.Publish(ctx, client.MemberProfile("bob", ""))
	if err != nil {
		t.Fatal(err)
	}
	cached := connect(t, th.URL, th.admin, client.Options{ProfileCache: time.Hour})
	name := func(c *client.Client) string {
		m := c.NewModel()
		if err := c.LoadNames(ctx, m, bob.PublicHex); err != nil {
			t.Fatal(err)
		}
		return m.Names().Name(bob.PublicHex)
	}
	if n := name(cached); n != "bob" {
		t.Fatalf("first LoadNames: %q", n)
	}
	rename := client.MemberProfile("robert", "")
	rename.CreatedAt = first.CreatedAt + 1 // a newer created_at for the rename
	if _, err := bc.Publish(ctx, rename); err != nil {
		t.Fatal(err)
	}
	if n := name(cached); n != "bob" {
		t.Fatalf("LoadNames with a fresh cached profile: %q, want the cached bob", n)
	}
	if n := name(admin); n != "robert" {
		t.Fatalf("LoadNames without the cache: %q, want robert", n)
	}
}
