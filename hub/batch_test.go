package hub

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// TestOneBatchNamedEvents: thread parents are read with the commit batch's
// first query, as the log held them when the batch began; within one batch
// (the writer held by an Exec while the events queue) a reply to a stored
// message is accepted, a reply to a message the batch deleted before it is
// refused, and a reply to a message stored earlier in the batch is accepted.
func TestOneBatchNamedEvents(t *testing.T) {
	h := worldHub(t)
	l := world.labels
	pub := T{"h", "pub"}
	first := signAs(l, "alice", 9, "first reply", pub, T{"e", "#m", "", "root"})
	del := signAs(l, "alice", 5, "", T{"e", "#m"})
	late := signAs(l, "alice", 9, "reply after the delete", pub, T{"e", "#m", "", "root"})
	fresh := signAs(l, "alice", 9, "a new message", pub)
	answer := signAs(l, "alice", 9, "its answer", pub, T{"e", fresh.ID, "", "root"})

	ctx := context.Background()
	held, release := make(chan struct{}), make(chan struct{})
	go h.Store.Exec(ctx, func(store.WriteTx) error {
		close(held)
		<-release
		return nil
	})
	<-held
	errs := make([]error, 5)
	var wg sync.WaitGroup
	for i, ev := range []*nostr.Event{first, del, late, fresh, answer} {
		wg.Add(1)
		if err := h.Store.PublishAsync(ctx, ev, func(_ []*nostr.Event, err error) { errs[i] = err; wg.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	wg.Wait()
	for i, name := range []string{"reply to a stored message", "its deletion", "", "new message", "reply to the new message"} {
		if name != "" && errs[i] != nil {
			t.Errorf("%s: refused: %v", name, errs[i])
		}
	}
	if errs[2] == nil || !strings.Contains(errs[2].Error(), "invalid: thread parent "+l["m"].ID+" is not on this hub") {
		t.Errorf("reply to a message deleted earlier in the batch: %v; want invalid: thread parent %s is not on this hub", errs[2], l["m"].ID)
	}
}
