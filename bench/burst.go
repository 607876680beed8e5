package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// ---- burst: connections send all their EVENTs without waiting, OKs read concurrently ----

type burstResult struct {
	N          int
	TimeToLast time.Duration
	Missing    int
	Rejected   int
	Reason     string
	RSSBefore  int64 // KiB
	HWMAfter   int64 // KiB
	GrowthKB   int64
}

// runBurst waits for the OKs until all came, none came for 30s, or maxWait passed since the
// last EVENT was written.
func runBurst(ctx context.Context, tg *target, evs []*nostr.Event, conns int, maxWait time.Duration) (*burstResult, error) {
	msgs := make([][]byte, len(evs))
	for i, ev := range evs {
		msgs[i] = eventMsg(ev)
	}
	want := make(map[string]bool, len(evs))
	for _, ev := range evs {
		want[ev.ID] = true
	}
	seen := make([]map[string]bool, conns)
	var got, rejected atomic.Int64
	var lastOK atomic.Int64
	var reason atomic.Value
	allIn := make(chan struct{})
	var once sync.Once
	cs, err := dialMany(ctx, tg.urls(), &tg.auth, conns, conns, func(i int) handlers {
		seen[i] = make(map[string]bool, len(evs)/conns+1)
		return handlers{ok: func(id string, ok bool, r string, t time.Time) {
			if !want[id] || seen[i][id] {
				return
			}
			seen[i][id] = true
			if !ok {
				rejected.Add(1)
				reason.Store(r)
			}
			lastOK.Store(t.UnixNano())
			if got.Add(1) == int64(len(evs)) {
				once.Do(func() { close(allIn) })
			}
		}}
	})
	if err != nil {
		return nil, err
	}
	defer closeAll(cs)

	res := &burstResult{N: len(evs)}
	res.RSSBefore, _ = tg.mem()
	if err := tg.resetHWM(); err != nil {
		logf("burst: cannot reset VmHWM (%v); growth includes earlier peaks", err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	var sendErr atomic.Value
	for c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < len(msgs); i += conns {
				if err := cs[c].send(msgs[i]); err != nil {
					sendErr.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	logf("%s: burst: all %d EVENTs written in %s", tg.name, len(evs), time.Since(start).Round(time.Millisecond))
	// wait for every OK, giving up after 30s without progress
	last := got.Load()
	stall := time.Now()
	sentAll := time.Now()
wait:
	for {
		select {
		case <-allIn:
			break wait
		case <-time.After(500 * time.Millisecond):
			if g := got.Load(); g != last {
				last, stall = g, time.Now()
			} else if time.Since(stall) > 30*time.Second {
				logf("%s: burst: no OK for 30s, giving up", tg.name)
				break wait
			}
			if time.Since(sentAll) > maxWait {
				logf("%s: burst: still OKs missing %s after the last EVENT, giving up", tg.name, maxWait)
				break wait
			}
		}
	}
	_, res.HWMAfter = tg.mem()
	res.GrowthKB = res.HWMAfter - res.RSSBefore
	if l := lastOK.Load(); l > 0 {
		res.TimeToLast = time.Unix(0, l).Sub(start)
	}
	res.Missing = len(evs) - int(got.Load())
	res.Rejected = int(rejected.Load())
	if r, ok := reason.Load().(string); ok {
		res.Reason = r
	}
	if e, ok := sendErr.Load().(error); ok && e != nil {
		logf("%s: burst: send error: %v", tg.name, e)
	}
	return res, nil
}
