package kinds

import (
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// A Stamper's times never repeat or go back: not within one millisecond,
// not when the clock steps back, not from many goroutines at once.
func TestStamperNeverRepeatsOrGoesBack(t *testing.T) {
	var s Stamper
	at := time.UnixMilli(1_700_000_000_123)
	if got := s.Next(at); got != at.UnixMilli() {
		t.Fatalf("first stamp %d, want the clock's %d", got, at.UnixMilli())
	}
	if got := s.Next(at); got != at.UnixMilli()+1 {
		t.Fatalf("same millisecond again: %d, want %d", got, at.UnixMilli()+1)
	}
	if got := s.Next(at.Add(-time.Second)); got != at.UnixMilli()+2 {
		t.Fatalf("clock a second back: %d, want %d", got, at.UnixMilli()+2)
	}
	const n, each = 8, 500
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ms := s.Next(at)
				mu.Lock()
				if seen[ms] {
					t.Errorf("stamp %d handed out twice", ms)
				}
				seen[ms] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != n*each {
		t.Fatalf("%d distinct stamps, want %d", len(seen), n*each)
	}
}

// Stamp sets created_at to the stamp's second and adds the rest as the ms
// tag, which Millis reads back.
func TestStampWritesSecondAndMsTag(t *testing.T) {
	var s Stamper
	before := time.Now().UnixMilli()
	ev := nostr.Event{Tags: nostr.Tags{{"h", "room"}}}
	s.Stamp(&ev)
	ms, ok := Millis(ev.Tags)
	if !ok {
		t.Fatalf("no ms tag Millis reads in %v", ev.Tags)
	}
	got := int64(ev.CreatedAt)*1000 + ms
	if got < before || got > time.Now().UnixMilli() {
		t.Fatalf("stamped %d ms, outside [%d, now]", got, before)
	}
	if len(ev.Tags) != 2 || ev.Tags[0][0] != "h" {
		t.Fatalf("tags %v: want the h tag kept and one ms tag added", ev.Tags)
	}
}

// The timed kinds: timeline rows and overlays, and the channel changes that
// become system rows; not hub state like profiles, read state or auth.
func TestTimedKinds(t *testing.T) {
	for _, n := range []int{Message, Reaction, Edit, Deletion, DeleteInChannel, Receipt, CreateGroup, JoinRequest, LeaveRequest, AddUser, RemoveUser, EditMetadata, DeleteGroup} {
		if !Timed(n) {
			t.Errorf("kind %d is not timed", n)
		}
	}
	for _, n := range []int{Profile, ReadState, HubMemberAdd, HubMemberRemove, GroupMetadata, SystemRow, 22242, 20001} {
		if Timed(n) {
			t.Errorf("kind %d is timed", n)
		}
	}
}
