package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ainb/hive/internal/pgtest"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/storetest"
	"github.com/nbd-wtf/go-nostr"
)

// durable starts a cluster that flushes commits to disk, as the SQLite log
// does (synchronous=FULL), so the figures compare like with like.
func durable(b *testing.B) *pgtest.Cluster {
	c := pgtest.StartDurable()
	b.Cleanup(c.Stop)
	return c
}

func newOn(c *pgtest.Cluster) storetest.New {
	return func(t testing.TB, o storetest.Options) func() storetest.Store {
		dsn := c.DSN(t)
		return func() storetest.Store {
			return open(t, dsn, store.Options{DefaultLimit: o.DefaultLimit, MaxLimit: o.MaxLimit, Now: o.Now})
		}
	}
}

// BenchmarkPublishPipelined is the SQLite log's benchmark of the same name,
// on PostgreSQL.
func BenchmarkPublishPipelined(b *testing.B) { storetest.BenchPublish(b, newOn(durable(b))) }

// BenchmarkQueries is the SQLite log's benchmark of the same name, on
// PostgreSQL.
func BenchmarkQueries(b *testing.B) { storetest.BenchQueries(b, newOn(durable(b))) }

// BenchmarkPublishTwoInstances splits the same pipelined writes between two
// stores on one database, as two hive instances would.
func BenchmarkPublishTwoInstances(b *testing.B) {
	dsn := durable(b).DSN(b)
	x, y := open(b, dsn, store.Options{}), open(b, dsn, store.Options{})
	defer x.Close()
	defer y.Close()
	a := storetest.NewSigner(b)
	evs := make([]*nostr.Event, b.N)
	for i := range evs {
		evs[i] = a.Event(b, 9, int64(1000+i), fmt.Sprint("message ", i), nostr.Tag{"h", "general"}, nostr.Tag{"p", a.PK}, nostr.Tag{"e", fmt.Sprintf("%064x", i)})
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for i, ev := range evs {
		s := x
		if i%2 == 1 {
			s = y
		}
		wg.Add(1)
		if err := s.PublishAsync(context.Background(), ev, func(_ []*nostr.Event, err error) {
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
