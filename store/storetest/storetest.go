// Package storetest is the behaviour every event-log backend must show,
// written once as a suite that takes a backend constructor. The SQLite and
// PostgreSQL logs both run it.
package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Store is what the suite exercises.
type Store interface {
	SaveEvent(ctx context.Context, ev *nostr.Event) error
	Publish(ctx context.Context, ev *nostr.Event) ([]*nostr.Event, error)
	PublishAsync(ctx context.Context, ev *nostr.Event, done func([]*nostr.Event, error)) error
	DeleteEvent(ctx context.Context, ev *nostr.Event) error
	Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error)
	QueryRaw(ctx context.Context, f nostr.Filter, scope *store.Scope) ([]store.Stored, error)
	Search(ctx context.Context, f nostr.Filter, scope *store.Scope) ([]store.Hit, error)
	CountEvents(ctx context.Context, f nostr.Filter) (int64, error)
	CountFilters(ctx context.Context, filters []nostr.Filter, scope *store.Scope) (int64, error)
	Unreadable(ctx context.Context, ids []string, scope *store.Scope) (string, error)
	SweepExpired(ctx context.Context) error
	Limits() (def, max int)
	Close()
}

// Options are the settings the suite varies; zero values take the backend's
// defaults.
type Options struct {
	DefaultLimit, MaxLimit int
	Now                    func() time.Time
}

// New makes a fresh, empty log for t and returns a function that opens it;
// every call opens the same log (after the previous one was closed), and the
// suite closes what it opens.
type New func(t testing.TB, o Options) (open func() Store)

// Run runs the suite against a backend.
func Run(t *testing.T, newStore New) {
	tests := []struct {
		name string
		fn   func(*testing.T, New)
	}{
		{"TagMatchingIsExact", tagMatchingIsExact},
		{"FilterSemantics", filterSemantics},
		{"Limits", limits},
		{"LimitCutsATie", limitCutsATie},
		{"DuplicateAndEphemeral", duplicateAndEphemeral},
		{"Replaceable", replaceable},
		{"Deletion", deletion},
		{"DeletionByAddressIsStrict", deletionByAddressIsStrict},
		{"DeletionOfManyEvents", deletionOfMany},
		{"DeletionInTheSameBatch", deletionInTheSameBatch},
		{"Expiration", expiration},
		{"ConcurrentWritesPersist", concurrentWritesPersist},
		{"AsyncOKOnlyAfterCommit", asyncOKOnlyAfterCommit},
		{"ScopeHidesChannelsAndOthersAuthorOnly", scopeHides},
		{"RecipientOnly", recipientOnly},
		{"Unreadable", unreadable},
		{"DeleteEvent", deleteEvent},
		{"SearchSyntaxAndFilters", searchSyntax},
		{"SearchInsideTheReadScope", searchScope},
		{"SearchEditsAndDeletes", searchEditsAndDeletes},
		{"SearchOneBatch", searchOneBatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore) })
	}
}

var ctx = context.Background()

func open(t testing.TB, newStore New, o Options) Store {
	t.Helper()
	s := newStore(t, o)()
	t.Cleanup(s.Close)
	return s
}

// Signer signs test events.
type Signer struct{ SK, PK string }

// NewSigner makes a fresh key.
func NewSigner(t testing.TB) Signer {
	sk := nostr.GeneratePrivateKey()
	pk, err := nostr.GetPublicKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	return Signer{sk, pk}
}

// Event signs an event.
func (s Signer) Event(t testing.TB, kind int, at int64, content string, tags ...nostr.Tag) *nostr.Event {
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content, Tags: nostr.Tags(tags)}
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	if err := ev.Sign(s.SK); err != nil {
		t.Fatal(err)
	}
	return ev
}

func mustSave(t testing.TB, s Store, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := s.SaveEvent(ctx, ev); err != nil {
			t.Fatalf("save kind %d: %v", ev.Kind, err)
		}
	}
}

func ids(t testing.TB, s Store, f nostr.Filter) []string {
	t.Helper()
	evs, err := s.Query(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(evs))
	for i, ev := range evs {
		if !f.Matches(ev) {
			t.Errorf("filter %v returned non-matching event %s", f, ev)
		}
		out[i] = ev.ID
	}
	return out
}

func idsOf(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	slices.Sort(out)
	return out
}
