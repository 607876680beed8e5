package groupcommit

import (
	"context"
	"sync"
	"testing"
	"time"
)

// With the default window, a lone write is committed at once; once writes
// come together (a batch of more than one), the window gathers the next
// ones into one commit.
func TestWindowOpensOnlyUnderConcurrency(t *testing.T) {
	batches := make(chan []int, 16)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	q := New(Options{WindowBatch: 2}, func(b []int) {
		batches <- append([]int(nil), b...)
		if b[0] == 1 {
			<-release // hold the first commit while two more queue up
		}
	})
	defer q.Close()
	defer free() // a failed check must not leave the first commit held
	ctx := context.Background()
	q.Put(ctx, 1)
	select {
	case b := <-batches:
		if len(b) != 1 {
			t.Fatalf("first batch %v", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a lone write waited for the window")
	}
	q.Put(ctx, 2)
	q.Put(ctx, 3)
	free()
	if b := <-batches; len(b) != 2 {
		t.Fatalf("the writes queued during a commit: batch %v, want [2 3]", b)
	}
	q.Put(ctx, 4)
	q.Put(ctx, 5)
	select {
	case b := <-batches:
		if len(b) != 2 || b[0] != 4 || b[1] != 5 {
			t.Fatalf("after a batch of two, the window should gather 4 and 5 put together: %v", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no batch")
	}
}
