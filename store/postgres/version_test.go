package postgres

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/storetest"
	"github.com/nbd-wtf/go-nostr"
)

// cachingProjector writes for kind 7 only (Stateful) and counts the times
// the store tells it to drop its cache.
type cachingProjector struct{ dropped atomic.Int64 }

func (p *cachingProjector) Schema() []string { return nil }
func (p *cachingProjector) Apply(store.WriteTx, *nostr.Event) ([]*nostr.Event, error) {
	return nil, nil
}
func (p *cachingProjector) Stateful(kind int) bool { return kind == 7 }
func (p *cachingProjector) RolledBack()            { p.dropped.Add(1) }

// TestOtherInstancesStateChangesDropTheCache: a writer drops its
// projector's cache at its next transaction after another instance
// committed an event of a kind the projector writes for (or ran an Exec),
// and keeps it across the other instance's commits of any other kind.
func TestOtherInstancesStateChangesDropTheCache(t *testing.T) {
	dsn := pg.DSN(t)
	pa, pb := &cachingProjector{}, &cachingProjector{}
	a, b := open(t, dsn, store.Options{Projector: pa}), open(t, dsn, store.Options{Projector: pb})
	t.Cleanup(func() { a.Close(); b.Close() })
	who := storetest.NewSigner(t)
	ctx := context.Background()
	at := int64(1000)
	save := func(s *Store, kind int) {
		t.Helper()
		at++
		if err := s.SaveEvent(ctx, who.Event(t, kind, at, "x")); err != nil {
			t.Fatal(err)
		}
	}
	save(a, 1)
	save(b, 1)
	base := pa.dropped.Load()
	for range 3 {
		save(b, 1)
		save(a, 1)
	}
	if n := pa.dropped.Load() - base; n != 0 {
		t.Errorf("A dropped its cache %d times after B stored events its projector never writes for; want 0", n)
	}
	for i, change := range []func(){
		func() { save(b, 7) },
		func() { b.Exec(ctx, func(store.WriteTx) error { return nil }) },
	} {
		before := pa.dropped.Load()
		change()
		save(a, 1)
		if pa.dropped.Load() == before {
			t.Errorf("change %d on B: A's next transaction kept its cache; want it dropped", i)
		}
		before = pa.dropped.Load()
		save(a, 1)
		if n := pa.dropped.Load() - before; n != 0 {
			t.Errorf("change %d on B: A dropped its cache again at its own next commit (%d)", i, n)
		}
	}
}
