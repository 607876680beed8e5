package storetest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// BenchPublish measures durable writes of kind 9 messages with three tags
// from b.N pipelined callers (the group-commit path).
func BenchPublish(b *testing.B, newStore New) {
	s := open(b, newStore, Options{})
	evs := Messages(b, b.N)
	b.ResetTimer()
	PublishAll(b, evs, s)
}

// Messages signs n kind 9 messages by one author in one channel, each with
// an h, a p and an e tag: the events the publish benchmarks write.
func Messages(b testing.TB, n int) []*nostr.Event {
	a := NewSigner(b)
	evs := make([]*nostr.Event, n)
	for i := range evs {
		evs[i] = a.Event(b, 9, int64(1000+i), fmt.Sprint("message ", i), nostr.Tag{"h", "general"}, nostr.Tag{"p", a.PK}, nostr.Tag{"e", fmt.Sprintf("%064x", i)})
	}
	return evs
}

// Publisher is a log's pipelined write.
type Publisher interface {
	PublishAsync(ctx context.Context, ev *nostr.Event, done func([]*nostr.Event, error)) error
}

// PublishAll publishes evs pipelined, through each of logs in turn (several
// stores on one database, as several instances), and waits until every one
// committed; a refusal fails b.
func PublishAll(b testing.TB, evs []*nostr.Event, logs ...Publisher) {
	var wg sync.WaitGroup
	for i, ev := range evs {
		wg.Add(1)
		if err := logs[i%len(logs)].PublishAsync(ctx, ev, func(_ []*nostr.Event, err error) {
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

// ProcessCPU is the CPU time this process used so far, user and system
// (getrusage): a benchmark's CPU per operation, which the machine's load
// inflates less than its wall time.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchQueries reads from 100k stored messages in 10 channels (or
// HIVE_BENCH_STORED of them, e.g. 1000000): a page of channel history, and
// exact lookups by #e, #p, authors and ids.
func BenchQueries(b *testing.B, newStore New) {
	stored := 100_000
	if v := os.Getenv("HIVE_BENCH_STORED"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 20_000 {
			b.Fatalf("HIVE_BENCH_STORED=%q: want a number of stored events, at least 20000", v)
		}
		stored = n
	}
	s := open(b, newStore, Options{})
	people := make([]Signer, 20)
	for i := range people {
		people[i] = NewSigner(b)
	}
	var ids []string
	evs := make([]*nostr.Event, 0, stored)
	for i := 0; i < stored; i++ {
		who := people[i%len(people)]
		tags := nostr.Tags{{"h", fmt.Sprint("c", i%10)}}
		if i%7 == 0 && len(ids) > 0 {
			tags = append(tags, nostr.Tag{"e", ids[(i/7)%100], "", "root"})
		}
		if i%5 == 0 {
			tags = append(tags, nostr.Tag{"p", people[(i/5)%len(people)].PK})
		}
		ev := who.Event(b, 9, int64(1000+i), "m", tags...)
		ids = append(ids, ev.ID)
		evs = append(evs, ev)
	}
	PublishAll(b, evs, s)
	// A server's statistics are current (PostgreSQL's autovacuum refreshes
	// them within a minute of a bulk load); refresh them now.
	if a, ok := s.(interface{ Analyze(context.Context) error }); ok {
		if err := a.Analyze(ctx); err != nil {
			b.Fatal(err)
		}
	}
	// Each query runs unscoped and with a reader's scope that hides channels
	// the queries do not reach (same answers, the narrowing's cost alone).
	scope := &store.Scope{Reader: people[0].PK, Hidden: []string{"x1", "x2", "x3"}, AuthorOnly: []int{30078}, RecipientOnly: []int{24200}}
	run := func(name string, f func(i int) nostr.Filter) {
		for _, sc := range []*store.Scope{nil, scope} {
			n := name
			if sc != nil {
				n += "/scoped"
			}
			b.Run(n, func(b *testing.B) {
				cpu0 := ProcessCPU()
				lat := timeQueries(b.N, func(i int) {
					evs, err := s.QueryRaw(ctx, f(i), sc)
					if err != nil || len(evs) == 0 {
						b.Fatal(len(evs), err)
					}
				})
				b.ReportMetric(float64((ProcessCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
				lat.report(b)
				b.StopTimer()
				for i := 0; i < min(b.N, 500); i++ { // untimed: every event inside its filter
					filter := f(i)
					evs, _ := s.QueryRaw(ctx, filter, sc)
					for _, st := range evs {
						if ev, err := st.Decode(); err != nil || !filter.Matches(ev) {
							b.Fatalf("%s: returned %s, outside its filter %v (%v)", n, st.ID, filter, err)
						}
					}
				}
			})
		}
	}
	run("history", func(i int) nostr.Filter {
		until := nostr.Timestamp(1000 + stored/10 + (i*7919)%(stored*9/10))
		return nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {fmt.Sprint("c", i%10)}}, Until: &until, Limit: 50}
	})
	run("tag-e", func(i int) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"e": {ids[i%100]}}, Limit: 50}
	})
	run("tag-p", func(i int) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"p": {people[i%len(people)].PK}}, Limit: 50}
	})
	run("authors", func(i int) nostr.Filter {
		until := nostr.Timestamp(1000 + stored/10 + (i*7919)%(stored*9/10))
		return nostr.Filter{Authors: []string{people[i%len(people)].PK}, Limit: 20, Until: &until}
	})
	run("ids", func(i int) nostr.Filter {
		return nostr.Filter{IDs: []string{ids[(i*7919)%len(ids)]}}
	})
}
