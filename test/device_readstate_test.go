package test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// unreadOn is what `hive channel list --json` on c says of channel id (-1:
// not listed, or no count).
func unreadOn(t *testing.T, c *cli, id string) int {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(c.ok("channel", "list", "--json")), "\n") {
		var ch struct {
			ID     string
			Unread *int
		}
		if json.Unmarshal([]byte(l), &ch) == nil && ch.ID == id && ch.Unread != nil {
			return *ch.Unread
		}
	}
	return -1
}

// Issue 17 item 3, acceptance: read state is the member's across its keys.
// With two devices paired by the real hive pair / hive join: reading a
// channel on one brings `hive channel list` on the other to 0 unread within
// 5 s, and the other hears the new position live; two devices (and two
// machines holding one key) marking at once never lose the later position;
// another member cannot read either device's position.
func TestReadStateAcrossDevices(t *testing.T) {
	h := startPairingHub(t)
	bob := h.withBob(t, "general")
	for _, text := range []string{"one", "two", "three"} {
		bob.ok("send", "general", text)
	}
	laptop, ljoin := pairCLI(t, h)
	phone, pjoin := pairCLI(t, h)
	if n := unreadOn(t, phone, "general"); n != 3 {
		t.Fatalf("the phone's unread before any read: %d, want 3", n)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	phoneC, err := dialProfile(ctx, t, profileOf(t, phone, pjoin["profile"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	defer phoneC.Close()
	heard := make(chan nostr.Timestamp, 16)
	followCtx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	// the phone follows the member's read positions from now on (as
	// FollowReadStates does), with its REQ answered before the laptop reads
	since := nostr.Now()
	sub, err := phoneC.Subscribe(followCtx, nostr.Filter{Kinds: []int{kinds.ReadState}, Since: &since})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.EOSE():
	case <-ctx.Done():
		t.Fatal("no EOSE for the read-state subscription")
	}
	go phoneC.FollowSub(followCtx, sub, func(ev nostr.Event) (bool, error) {
		if c, at, err := phoneC.ParseReadState(ev); err == nil && c == "general" {
			heard <- at.At
		}
		return false, nil
	})

	laptop.ok("read", "general")
	start := time.Now()
	for unreadOn(t, phone, "general") != 0 {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the phone still shows unread 5 s after the laptop read the channel")
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("read on the laptop -> 0 unread on the phone: %s", time.Since(start).Round(time.Millisecond))
	select {
	case <-heard:
	case <-time.After(5 * time.Second):
		t.Fatal("the phone did not hear the laptop's new position live")
	}

	// Marks at once: the two devices, and two machines holding the laptop's key.
	lpr := profileOf(t, laptop, ljoin["profile"].(string))
	var marks []*client.Client
	for _, pr := range []client.Profile{lpr, lpr} {
		c, err := dialProfile(ctx, t, pr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		marks = append(marks, c)
	}
	owner := h.ownerClient(t)
	base := nostr.Timestamp(time.Now().Unix())
	sameKey, twoDevices := marks, []*client.Client{marks[0], phoneC}
	for round := range nostr.Timestamp(6) {
		marks := sameKey
		if round%2 == 1 {
			marks = twoDevices
		}
		var wg sync.WaitGroup
		errs := make([]error, len(marks))
		top := base + round*10 + nostr.Timestamp(len(marks))
		for i, c := range marks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = c.MarkRead(ctx, "race", kinds.ReadAt(base+round*10+nostr.Timestamp(i+1)))
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for name, c := range map[string]*client.Client{"owner": owner, "phone": phoneC, "laptop": marks[0]} {
			rs, err := c.ReadStates(ctx)
			if err != nil || !rs["race"].Equal(kinds.ReadAt(top)) {
				t.Fatalf("round %d: the %s sees position %v (%v), want %d", round, name, rs["race"], err, top)
			}
		}
	}

	// Bob reads neither position and cannot ask for them.
	bobC, err := dialProfile(ctx, t, profileOf(t, bob, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer bobC.Close()
	if rs, err := bobC.ReadStates(ctx); err != nil || len(rs) != 0 {
		t.Fatalf("bob's read positions: %v, %v", rs, err)
	}
	_, err = bobC.Query(ctx, nostr.Filter{Kinds: []int{30078}, Authors: []string{ljoin["device"].(string), pjoin["device"].(string)}})
	var re *client.RefusedError
	if !errors.As(err, &re) || !strings.HasPrefix(re.Reason, "restricted: kind 30078 is readable by its author only") {
		t.Fatalf("bob asks for the devices' positions: %v", err)
	}
}
