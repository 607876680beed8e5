package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// latencies collects durations and reports nearest-rank percentiles.
type latencies []time.Duration

func (l latencies) pct(p float64) time.Duration {
	if len(l) == 0 {
		return -1
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func waitGroupTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// createChannels publishes the kind 9007 channel-create events (signed now) and waits for OKs.
func createChannels(ctx context.Context, tg *target, chans []string) error {
	okc := make(chan okMsg, len(chans))
	c, err := dial(ctx, tg.urls()[0], &tg.auth, handlers{ok: func(id string, ok bool, reason string, t time.Time) {
		okc <- okMsg{id, ok, reason, t}
	}})
	if err != nil {
		return err
	}
	defer c.close()
	for _, ch := range chans {
		ev := nostr.Event{
			Kind:      9007,
			CreatedAt: nostr.Now(),
			Tags:      nostr.Tags{{"h", ch}, {"name", "bench"}, {"visibility", "open"}, {"type", "stream"}},
		}
		if err := ev.Sign(adminSK); err != nil {
			return err
		}
		if err := c.send(eventMsg(&ev)); err != nil {
			return err
		}
		select {
		case m := <-okc:
			if !m.ok {
				return fmt.Errorf("channel create %s refused: %s", ch, m.reason)
			}
		case <-time.After(10 * time.Second):
			return fmt.Errorf("no OK for channel create %s", ch)
		}
	}
	return nil
}

// subscribeChannel opens n connections spread over urls, each with one REQ for channel ch's
// kind 9 messages from now on (limit 0), and waits up to wait for every EOSE. event, when set,
// gets what connection k receives.
func subscribeChannel(ctx context.Context, urls []string, auth *authMode, n int, ch string, wait time.Duration, event func(k int, raw []byte, t time.Time)) ([]*client, error) {
	var eose sync.WaitGroup
	eose.Add(n)
	var closedN atomic.Int64
	var closedReason atomic.Value
	f := nostr.Filter{Tags: nostr.TagMap{"h": {ch}}, Kinds: []int{9}, LimitZero: true}
	cs, err := dialMany(ctx, urls, auth, n, 32, func(k int) handlers {
		var once sync.Once
		h := handlers{
			eose: func(string, time.Time) { once.Do(eose.Done) },
			closed: func(_, reason string, _ time.Time) {
				closedN.Add(1)
				closedReason.Store(reason)
				once.Do(eose.Done)
			},
		}
		if event != nil {
			h.event = func(_ string, raw []byte, t time.Time) { event(k, raw, t) }
		}
		return h
	})
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if err := c.send(reqMsg("live", f)); err != nil {
			closeAll(cs)
			return nil, err
		}
	}
	if !waitGroupTimeout(&eose, wait) {
		closeAll(cs)
		return nil, fmt.Errorf("not every subscription got EOSE within %s", wait)
	}
	if k := closedN.Load(); k > 0 {
		closeAll(cs)
		return nil, fmt.Errorf("%d subscriptions CLOSED: %v", k, closedReason.Load())
	}
	return cs, nil
}
