// Package groupcommit is the write queue both event-log backends share: one
// goroutine takes queued writes in batches and commits each batch in one
// transaction, so one durable commit covers many writers.
package groupcommit

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrClosed is returned by Put once Close has been called.
var ErrClosed = errors.New("error: the store is shutting down")

// Options tune the batching. Zero values take the defaults.
type Options struct {
	MaxBatch  int // writes per batch (default 1000)
	QueueSize int // pending writes before Put blocks (default 4096)
	// Window is how long a batch smaller than WindowBatch waits for more
	// writes before it commits (negative: commit at once). The default,
	// 1 ms, is held only when the batch before held more than one write;
	// a window set here is always held.
	Window      time.Duration
	WindowBatch int // default 8
}

func (o *Options) defaults() {
	if o.MaxBatch <= 0 {
		o.MaxBatch = 1000
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 4096
	}
	if o.Window == 0 {
		o.Window = time.Millisecond
	}
	if o.WindowBatch <= 0 {
		o.WindowBatch = 8
	}
}

// Queue feeds batches of W to a commit function running on one goroutine.
type Queue[W any] struct {
	opts   Options
	always bool // the window was set, not defaulted: hold it for every batch
	commit func([]W)
	mu     sync.RWMutex // guards closed against concurrent Puts
	closed bool
	ch     chan W
	done   chan struct{}
}

// New starts the committing goroutine. commit runs on it, one batch at a time.
func New[W any](opts Options, commit func(batch []W)) *Queue[W] {
	always := opts.Window != 0
	opts.defaults()
	q := &Queue[W]{opts: opts, always: always, commit: commit, ch: make(chan W, opts.QueueSize), done: make(chan struct{})}
	go q.loop()
	return q
}

// Put queues w; it blocks only while the queue is full.
func (q *Queue[W]) Put(ctx context.Context, w W) error {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return ErrClosed
	}
	select {
	case q.ch <- w:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting writes and returns once everything queued committed.
func (q *Queue[W]) Close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
	q.mu.Unlock()
	<-q.done
}

func (q *Queue[W]) loop() {
	defer close(q.done)
	batch := make([]W, 0, q.opts.MaxBatch)
	window := time.NewTimer(time.Hour)
	window.Stop()
	last := 0 // the size of the batch before
	for first := range q.ch {
		batch = append(batch[:0], first)
		// Gather what is queued, and while the batch is small give writers
		// that are about to send a short window to join it. One commit then
		// covers them all, which is what bounds OK latency under load. The
		// window opens only when the batch before held more than one write:
		// a lone writer (one person chatting) is committed at once instead
		// of waiting for company that is not coming.
		open := q.opts.Window > 0 && (q.always || last > 1) // negative: no window
		if open {
			window.Reset(q.opts.Window)
		}
	gather:
		for len(batch) < q.opts.MaxBatch {
			select {
			case w, ok := <-q.ch:
				if !ok {
					break gather
				}
				batch = append(batch, w)
				continue
			default:
			}
			if !open || len(batch) >= q.opts.WindowBatch {
				break
			}
			select {
			case w, ok := <-q.ch:
				if !ok {
					break gather
				}
				batch = append(batch, w)
			case <-window.C:
				open = false
			}
		}
		if open {
			window.Stop() // Go 1.23+ timers: no stale tick after Stop
		}
		last = len(batch)
		q.commit(batch)
	}
}
