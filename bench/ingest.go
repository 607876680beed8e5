package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// ---- ingest: publishers each send one EVENT and wait for its OK ----

type ingestResult struct {
	N        int
	Wall     time.Duration
	Rate     float64
	P50, P99 time.Duration
	Rejected int
	Reason   string
}

type okMsg struct {
	id     string
	ok     bool
	reason string
	t      time.Time
}

// runIngest stops early (and reports the rate over what completed) once maxDur has passed.
func runIngest(ctx context.Context, tg *target, evs []*nostr.Event, pubs int, maxDur time.Duration) (*ingestResult, error) {
	msgs := make([][]byte, len(evs))
	for i, ev := range evs {
		msgs[i] = eventMsg(ev)
	}
	oks := make([]chan okMsg, pubs)
	cs, err := dialMany(ctx, tg.urls(), &tg.auth, pubs, pubs, func(i int) handlers {
		oks[i] = make(chan okMsg, 64)
		return handlers{ok: func(id string, ok bool, reason string, t time.Time) {
			oks[i] <- okMsg{id, ok, reason, t}
		}}
	})
	if err != nil {
		return nil, err
	}
	defer closeAll(cs)

	var mu sync.Mutex
	res := &ingestResult{N: len(evs)}
	var all latencies
	var wg sync.WaitGroup
	var firstErr error
	start := time.Now()
	for p := range pubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make(latencies, 0, len(evs)/pubs+1)
			rejected, reason := 0, ""
			for i := p; i < len(evs); i += pubs {
				if time.Since(start) > maxDur {
					break
				}
				t0 := time.Now()
				if err := cs[p].send(msgs[i]); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				select {
				case m := <-oks[p]:
					if m.id != evs[i].ID {
						mu.Lock()
						firstErr = fmt.Errorf("OK for unexpected id %s", m.id)
						mu.Unlock()
						return
					}
					lat = append(lat, m.t.Sub(t0))
					if !m.ok {
						rejected++
						reason = m.reason
					}
				case <-time.After(30 * time.Second):
					mu.Lock()
					firstErr = errors.New("no OK within 30s")
					mu.Unlock()
					return
				}
			}
			mu.Lock()
			all = append(all, lat...)
			res.Rejected += rejected
			if reason != "" {
				res.Reason = reason
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Wall = time.Since(start)
	if firstErr != nil {
		return nil, firstErr
	}
	res.N = len(all)
	res.Rate = float64(len(all)) / res.Wall.Seconds()
	res.P50, res.P99 = all.pct(50), all.pct(99)
	return res, nil
}
