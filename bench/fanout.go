package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// ---- fan-out: one publisher, many subscribers on one channel ----

type fanoutResult struct {
	Subs, Events int
	P50, P99     time.Duration
	Missed       int
	Rejected     int
}

// runFanout subscribes subs connections to channel ch, spread over subURLs in turn, then
// publishes evs one every spacing on one connection to pubURL. With one server both are its URL;
// over several instances, a publisher on one and subscribers on the others measure the delivery
// from one instance to another (through the shared log).
func runFanout(ctx context.Context, tg *target, subURLs []string, pubURL string, ch string, evs []*nostr.Event, subs int, spacing time.Duration) (*fanoutResult, error) {
	index := make(map[string]int, len(evs))
	for i, ev := range evs {
		index[ev.ID] = i
	}
	type rec struct {
		i int32
		t int64
	}
	recs := make([][]rec, subs)
	var delivered atomic.Int64
	cs, err := subscribeChannel(ctx, subURLs, &tg.auth, subs, ch, 60*time.Second, func(k int, raw []byte, t time.Time) {
		if i, ok := index[eventIDKey(raw)]; ok {
			recs[k] = append(recs[k], rec{int32(i), t.UnixNano()})
			delivered.Add(1)
		}
	})
	if err != nil {
		return nil, err
	}
	defer func() { closeAll(cs) }()
	logf("%s: %d subscribers live on %s", tg.name, subs, ch)

	var rejected atomic.Int64
	pub, err := dial(ctx, pubURL, &tg.auth, handlers{ok: func(id string, ok bool, reason string, t time.Time) {
		if !ok {
			rejected.Add(1)
			logf("%s: fan-out: publish refused: %s", tg.name, reason)
		}
	}})
	if err != nil {
		return nil, err
	}
	defer pub.close()
	sent := make([]int64, len(evs))
	tick := time.NewTicker(spacing)
	for i, ev := range evs {
		<-tick.C
		msg := eventMsg(ev)
		sent[i] = time.Now().UnixNano()
		if err := pub.send(msg); err != nil {
			tick.Stop()
			return nil, err
		}
	}
	tick.Stop()
	want := int64(len(evs) * subs)
	deadline := time.Now().Add(10 * time.Second)
	for delivered.Load() < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	res := &fanoutResult{Subs: subs, Events: len(evs), Rejected: int(rejected.Load())}
	// stop the readers before looking at what they recorded
	closeAll(cs)
	cs = nil
	var lat latencies
	unique := 0
	for _, rs := range recs {
		seen := make(map[int32]bool, len(rs))
		for _, r := range rs {
			if seen[r.i] {
				continue
			}
			seen[r.i] = true
			unique++
			lat = append(lat, time.Duration(r.t-sent[r.i]))
		}
	}
	res.Missed = int(want) - unique
	res.P50, res.P99 = lat.pct(50), lat.pct(99)
	return res, nil
}
