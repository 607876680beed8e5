package postgres

import (
	"testing"

	"github.com/ainb/hive/internal/pgtest"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/storetest"
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
	evs := storetest.Messages(b, b.N)
	b.ResetTimer()
	storetest.PublishAll(b, evs, x, y)
}
