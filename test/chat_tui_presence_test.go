package test

import (
	"context"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// A member whose chat came online before another member's chat started
// shows online there all the same: presence is ephemeral (the hub keeps
// none), so the chat that starts learns it from the running chat's answer
// to its own coming online (the hello), not from the hub's store. This is
// the order in which TestChatTUITwoMembers flaked: bob's first presence
// went out before alice's live feed was on the wire.
func TestChatTUIOnlineBeforeTheOtherStarts(t *testing.T) {
	w := newChatWorld(t)
	bobPK, err := identity.ParsePublicKey(w.npub["bob"])
	if err != nil {
		t.Fatal(err)
	}
	watch := w.client(t, "alice")
	sub, err := watch.Subscribe(ctxT(t), nostr.Filter{Kinds: []int{kinds.Presence}, Authors: []string{bobPK}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.EOSE(): // the REQ is in place: bob's presence from now on reaches it
	case <-time.After(20 * time.Second):
		t.Fatal("no EOSE for the presence subscription")
	}
	bob := startChat(t, w.c.home, 80, 24, "general", "--profile", "bob")
	bob.waitText("#general", "● connected")
	ctx, cancel := context.WithTimeout(ctxT(t), tuiDeadline)
	defer cancel()
	err = watch.FollowSub(ctx, sub, func(ev nostr.Event) (bool, error) { return ev.Content == "online", nil })
	if err != nil {
		t.Fatalf("bob's chat never said online: %v", err)
	}

	alice := startChat(t, w.c.home, 100, 30, "general", "--profile", "alice")
	alice.waitText("#general", "● connected")
	alice.waitFor("bob online in alice's sidebar", func(s string) bool { return sideLine(s, "● bob") == "● bob" })
}
