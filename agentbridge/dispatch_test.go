package agentbridge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"
)

// started is a turn the dispatcher started.
type started struct {
	slot  int
	ch    string
	batch []Mention
}

// testDispatcher is a dispatcher with n ready slots whose turns are
// recorded instead of run (its own decisions, without agents).
func testDispatcher(t *testing.T, n int) (*dispatcher, *[]started) {
	t.Helper()
	state, err := OpenState(t.TempDir(), "a", func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { state.Flush() })
	log, status := slog.New(slog.DiscardHandler), newStatusBoard(n)
	d := newDispatcher(n, log, state, newOutbox(log, status), status, nil)
	var got []started
	d.start = func(_ context.Context, s *slot, _ *agentProc, ch string, batch []Mention) {
		got = append(got, started{s.idx, ch, batch})
	}
	d.spawn = func(context.Context) (*agentProc, error) { return nil, errors.New("no agents in this test") }
	d.postFailure = func(context.Context, []Mention, string) {}
	for _, s := range d.slots {
		s.state = slotReady
	}
	return d, &got
}

func TestSlotFor(t *testing.T) {
	d, _ := testDispatcher(t, 3)
	d.slots[0].pinned, d.slots[1].pinned, d.slots[2].pinned = 2, 0, 1
	if s := d.slotFor("new"); s == nil || s.idx != 1 {
		t.Fatalf("a new channel goes to the idle slot with the fewest channels: %+v", s)
	}
	d.affinity["a"] = 0
	if s := d.slotFor("a"); s == nil || s.idx != 0 {
		t.Fatalf("a channel keeps its idle slot: %+v", s)
	}
	d.slots[0].state = slotBusy
	if s := d.slotFor("a"); s != nil {
		t.Fatalf("a channel waits while its slot is busy: %+v", s)
	}
	d.slots[0].state = slotOpen
	if s := d.slotFor("a"); s == nil || s.idx != 1 {
		t.Fatalf("a channel whose slot's breaker is open moves to an idle one: %+v", s)
	}
	for _, s := range d.slots {
		s.state = slotStarting
	}
	if s := d.slotFor("b"); s != nil {
		t.Fatalf("no idle slot: %+v", s)
	}
}

// pump starts the channel whose oldest mention came first, on the slot
// slotFor picks, pins the channel there, and leaves what has no slot or a
// turn in flight waiting.
func TestPump(t *testing.T) {
	d, got := testDispatcher(t, 2)
	t0 := time.Now()
	for _, m := range []Mention{mention("a1", "a", t0.Add(time.Second)), mention("b1", "b", t0), mention("c1", "c", t0.Add(2*time.Second))} {
		d.queue.Push(m)
	}
	d.pump(context.Background())
	if len(*got) != 2 || (*got)[0].ch != "b" || (*got)[1].ch != "a" || (*got)[0].slot == (*got)[1].slot {
		t.Fatalf("started %+v, want b then a on two slots", *got)
	}
	for _, st := range *got {
		if s := d.slots[st.slot]; s.state != slotBusy || s.pinned != 1 || d.affinity[st.ch] != st.slot || len(d.inFlight[st.ch]) != 1 {
			t.Fatalf("slot %d after starting %s: %+v, affinity %v, in flight %v", st.slot, st.ch, s, d.affinity, d.inFlight)
		}
	}
	d.queue.Push(mention("b2", "b", t0.Add(3*time.Second)))
	d.pump(context.Background())
	if len(*got) != 2 || d.queue.Len() != 2 {
		t.Fatalf("c has no slot and b a turn in flight: started %+v, %d waiting", *got, d.queue.Len())
	}
}

// turnDone after an answer frees the slot, records the batch and starts
// the channel's next batch there; after a crash it puts the batch back
// (one attempt more), retires the process and runs the batch on another
// slot.
func TestTurnDone(t *testing.T) {
	d, got := testDispatcher(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the respawn of the crashed slot
	t0 := time.Now()
	d.queue.Push(mention("a1", "a", t0))
	d.pump(ctx)
	first := (*got)[0]
	d.queue.Push(mention("a2", "a", t0.Add(time.Second)))
	s := d.slots[first.slot]
	d.turnDone(ctx, s, s.proc, "a", first.batch, turnAnswered)
	if !d.state.Answered("a1") || len(*got) != 2 || (*got)[1].slot != first.slot || (*got)[1].batch[0].ID != "a2" {
		t.Fatalf("after the answer: answered %v, started %+v", d.state.Answered("a1"), *got)
	}

	p, err := spawn([]string{"sleep", "60"}, t.TempDir(), nil, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	proc := &agentProc{proc: p}
	s.proc = proc
	d.turnDone(ctx, s, proc, "a", (*got)[1].batch, turnCrashed)
	if len(*got) != 3 {
		t.Fatalf("the crashed batch was not run again: %+v", *got)
	}
	again := (*got)[2]
	if again.slot == first.slot || again.batch[0].ID != "a2" || again.batch[0].Attempts != 1 || d.state.Answered("a2") {
		t.Fatalf("after the crash: %+v (crashed slot %d)", again, first.slot)
	}
	if s.proc != nil || s.state == slotReady || s.state == slotBusy {
		t.Fatalf("the crashed slot keeps its process: %+v", s)
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the crashed process was not killed")
	}
}
