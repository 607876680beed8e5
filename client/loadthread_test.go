package client_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
)

// LoadThread (one REQ for the root, its replies and the root's overlays,
// then one for the replies' overlays and the deletions of the root's)
// shows a thread as the model shows it from every event: edits applied to
// the root and a reply, reactions counted on both, a deleted reply gone, a
// retracted reaction gone; a message outside the thread left out. A
// member who cannot read the channel is refused, with the reason, and
// gets nothing of it (real hub).
func TestLoadThreadAppliesOverlays(t *testing.T) {
	th, admin := startHubAdmin(t)
	bobKeys := th.member(t, admin)
	bob := connect(t, th.URL, bobKeys, client.Options{})
	ctx := ctxT(t, 10*time.Second)
	publish := func(c *client.Client, ev nostr.Event) nostr.Event {
		t.Helper()
		return mustPublish(t, ctx, c, ev)
	}
	publish(admin, client.ChannelCreate("general", "General", client.Open))
	publish(admin, client.ChannelCreate("secret", "Secret", client.Private))
	publish(bob, client.ChannelJoin("general"))
	root := publish(admin, client.Message("general", "root text"))
	publish(admin, client.Message("general", "not in the thread"))
	r1 := publish(bob, client.Reply(root, "reply one"))
	r2 := publish(admin, client.Reply(root, "reply two"))
	r3 := publish(bob, client.Reply(r1, "reply three"))
	publish(admin, client.Edit(root, "root edited"))
	publish(bob, client.Reaction(root, "👍"))
	publish(bob, client.Edit(r1, "reply one edited"))
	publish(admin, client.Reaction(r1, "🎉"))
	gone := publish(bob, client.Reaction(r2, "👀"))
	publish(bob, client.Retract(gone.ID))
	publish(admin, client.Delete(r3, "off topic"))

	m := admin.NewModel()
	evs, err := admin.LoadThread(ctx, m, "general", root.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 4 {
		t.Fatalf("LoadThread returned %d events, want the root and its 3 replies in general", len(evs))
	}
	rows := m.Thread(root.ID)
	var got []string
	for _, r := range rows {
		got = append(got, r.Text)
	}
	if len(rows) != 3 || rows[0].Text != "root edited" || rows[1].Text != "reply one edited" || rows[2].Text != "reply two" {
		t.Fatalf("thread rows %q, want [root edited, reply one edited, reply two]", got)
	}
	if len(rows[0].Reactions) != 1 || rows[0].Reactions[0].Emoji != "👍" || len(rows[1].Reactions) != 1 || rows[1].Reactions[0].Emoji != "🎉" || len(rows[2].Reactions) != 0 {
		t.Fatalf("reactions: root %+v, reply one %+v, reply two %+v", rows[0].Reactions, rows[1].Reactions, rows[2].Reactions)
	}

	outsider := connect(t, th.URL, th.member(t, admin), client.Options{})
	secretRoot := publish(admin, client.Message("secret", "secret root"))
	publish(admin, client.Reply(secretRoot, "secret reply"))
	m = outsider.NewModel()
	const refused = "restricted: #h names channel secret, which you are not a member of"
	if evs, err := outsider.LoadThread(ctx, m, "secret", secretRoot.ID); err == nil || !strings.Contains(err.Error(), refused) || len(evs) != 0 || len(m.Thread(secretRoot.ID)) != 0 {
		t.Fatalf("a non-member's LoadThread of a private channel: %v, %d events, rows %+v; want %q", err, len(evs), m.Thread(secretRoot.ID), refused)
	}
}
