package agentbridge

import (
	"fmt"
	"testing"
	"time"
)

func mention(id, ch string, at time.Time) Mention {
	return Mention{ID: id, Channel: ch, At: at, Received: at}
}

func TestQueueOneTurnPerChannelAndBatching(t *testing.T) {
	q := NewQueue()
	t0 := time.Unix(1000, 0)
	q.Push(mention("a1", "a", t0))
	all := func(string) bool { return true }
	ch, batch := q.Next(all)
	if ch != "a" || len(batch) != 1 {
		t.Fatalf("first: %q %v", ch, batch)
	}
	q.Push(mention("a2", "a", t0.Add(time.Second)))
	q.Push(mention("a3", "a", t0.Add(2*time.Second)))
	if ch, _ := q.Next(all); ch != "" {
		t.Fatalf("second turn in flight for %q", ch)
	}
	q.Done("a", batch)
	ch, batch = q.Next(all)
	if ch != "a" || len(batch) != 2 || batch[0].ID != "a2" || batch[1].ID != "a3" {
		t.Fatalf("batch %q %v", ch, batch)
	}
	if q.Push(mention("a2", "a", t0)) {
		t.Fatal("a mention in flight was queued again")
	}
}

func TestQueueOldestHeadFirstAndRequeueKeepsPlace(t *testing.T) {
	q := NewQueue()
	t0 := time.Unix(1000, 0)
	q.Push(mention("b1", "b", t0.Add(time.Second)))
	q.Push(mention("a1", "a", t0))
	q.Push(mention("c1", "c", t0.Add(2*time.Second)))
	all := func(string) bool { return true }
	ch, batch := q.Next(all)
	if ch != "a" {
		t.Fatalf("got %q, want the oldest head a", ch)
	}
	q.Requeue("a", batch)
	if ch, _ := q.Next(func(c string) bool { return c != "a" }); ch != "b" {
		t.Fatalf("with a's process busy got %q, want b", ch)
	}
	if ch, _ := q.Next(all); ch != "a" {
		t.Fatalf("requeued a lost its place: got %q", ch)
	}
}

func TestQueueBatchLimit(t *testing.T) {
	q := NewQueue()
	t0 := time.Unix(1000, 0)
	for i := 0; i < MaxBatch+7; i++ {
		q.Push(mention(fmt.Sprint(i), "a", t0.Add(time.Duration(i))))
	}
	_, batch := q.Next(func(string) bool { return true })
	if len(batch) != MaxBatch || q.Len() != 7 {
		t.Fatalf("batch %d, left %d", len(batch), q.Len())
	}
	if old, _ := q.Oldest(); !old.Equal(t0.Add(MaxBatch)) {
		t.Fatalf("oldest queued %v", old)
	}
}

func TestBreakerBacksOffThenOpens(t *testing.T) {
	var b Breaker
	now := time.Unix(1000, 0)
	d1, open := b.Crash(now)
	if open || d1 < respawnBase*8/10 || d1 > respawnBase*12/10 {
		t.Fatalf("first crash: %v open=%v", d1, open)
	}
	d2, open := b.Crash(now.Add(time.Second))
	if open || d2 < 2*respawnBase*8/10 || d2 > 2*respawnBase*12/10 {
		t.Fatalf("second crash: %v open=%v", d2, open)
	}
	if _, open := b.Crash(now.Add(2 * time.Second)); !open || !b.Open(now.Add(3*time.Second)) {
		t.Fatal("third crash within the window did not open the circuit")
	}
	if b.Open(now.Add(2*time.Second + breakerCooldown)) {
		t.Fatal("still open after the cooldown")
	}
	// half-open: one more crash re-opens at once
	if _, open := b.Crash(now.Add(3*time.Second + breakerCooldown)); !open {
		t.Fatal("a crash right after the cooldown did not re-open")
	}
	// crashes spread beyond the window never open it
	var c Breaker
	for i := 0; i < 10; i++ {
		if _, open := c.Crash(now.Add(time.Duration(i) * breakerWindow)); open {
			t.Fatalf("opened on crash %d spaced a window apart", i)
		}
	}
}

func TestQueueLimits(t *testing.T) {
	q := NewQueue()
	t0 := time.Unix(1000, 0)
	push := func(id, ch, author string) string {
		m := Mention{ID: id, Channel: ch, Author: author, At: t0, Received: t0}
		if why := q.Full(m); why != "" {
			return why
		}
		q.Push(m)
		return ""
	}
	for i := 0; i < MaxQueuedPerAuthor; i++ {
		if why := push(fmt.Sprintf("a%d", i), fmt.Sprintf("ch%d", i%3), "alice"); why != "" {
			t.Fatalf("mention %d refused: %s", i, why)
		}
	}
	if why := push("a-over", "ch9", "alice"); why != "20 of your mentions already wait (at most 20 per author, 100 per channel)" {
		t.Fatalf("over the author limit: %q", why)
	}
	if why := q.Full(Mention{Channel: "ch0", Author: "alice"}); why != "" {
		t.Fatalf("a steer refused: %q", why)
	}
	// Taken into a turn, a batch no longer counts; requeued, it counts again.
	ch, batch := q.Next(func(string) bool { return true })
	if why := push("a-room", "ch9", "alice"); why != "" {
		t.Fatalf("after %d were taken into a turn: %q", len(batch), why)
	}
	q.Requeue(ch, batch)
	if why := push("a-over2", "ch9", "alice"); why == "" {
		t.Fatal("the requeued batch was not counted again")
	}
	for i := 0; len(q.pending["busy"]) < MaxQueuedPerChannel; i++ {
		if why := push(fmt.Sprintf("b%d", i), "busy", fmt.Sprintf("author%d", i)); why != "" {
			t.Fatalf("mention %d refused: %s", i, why)
		}
	}
	if why := push("b-over", "busy", "someone"); why != "100 mentions already wait in this channel (at most 100 per channel, 20 per author)" {
		t.Fatalf("over the channel limit: %q", why)
	}
}

// A channel's batch is in the order its mentions were received, not the
// order they were pushed: a mention the last run had asked (received when
// that turn began) goes before one pushed earlier in this run's catch-up,
// and mentions received at the same time keep the order they came in.
func TestQueueBatchInReceivedOrder(t *testing.T) {
	q := NewQueue()
	t0 := time.Unix(1000, 0)
	posted := Mention{ID: "posted-while-down", Channel: "a", At: t0, Received: t0.Add(time.Minute)}
	asked := Mention{ID: "in-flight-last-run", Channel: "a", At: t0, Received: t0.Add(time.Second)}
	same := Mention{ID: "same-time", Channel: "a", At: t0, Received: t0.Add(time.Minute)}
	q.Push(posted)
	q.Push(asked)
	q.Push(same)
	_, batch := q.Next(func(string) bool { return true })
	var ids []string
	for _, m := range batch {
		ids = append(ids, m.ID)
	}
	if fmt.Sprint(ids) != "[in-flight-last-run posted-while-down same-time]" {
		t.Fatalf("batch %v", ids)
	}
	if target(batch).ID != "same-time" {
		t.Fatalf("the reply's target %s", target(batch).ID)
	}
}
