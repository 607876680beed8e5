package store

import (
	"fmt"
	"sync"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// BenchmarkPublishPipelined measures durable writes of kind 9 messages with
// three tags from 64 concurrent callers (the group-commit path).
func BenchmarkPublishPipelined(b *testing.B) {
	s := open(b, Options{})
	a := newSigner(b)
	evs := make([]*nostr.Event, b.N)
	for i := range evs {
		evs[i] = a.event(b, 9, int64(1000+i), fmt.Sprint("message ", i), nostr.Tag{"h", "general"}, nostr.Tag{"p", a.pk}, nostr.Tag{"e", fmt.Sprintf("%064x", i)})
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, ev := range evs {
		wg.Add(1)
		if err := s.PublishAsync(ctx, ev, func(_ []*nostr.Event, err error) {
			if err != nil {
				b.Error(err)
			}
			wg.Done()
		}); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
}

// BenchmarkChannelHistory reads the newest 50 messages of a channel among 100k.
func BenchmarkChannelHistory(b *testing.B) {
	s := open(b, Options{})
	a := newSigner(b)
	var wg sync.WaitGroup
	for i := 0; i < 100_000; i++ {
		ch := fmt.Sprint("c", i%10)
		ev := a.event(b, 9, int64(1000+i), "m", nostr.Tag{"h", ch})
		wg.Add(1)
		s.PublishAsync(ctx, ev, func([]*nostr.Event, error) { wg.Done() })
	}
	wg.Wait()
	until := nostr.Timestamp(1000 + 50_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		evs, err := s.Query(ctx, nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"c3"}}, Until: &until, Limit: 50})
		if err != nil || len(evs) != 50 {
			b.Fatal(len(evs), err)
		}
	}
}
