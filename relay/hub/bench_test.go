package hub

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// BenchmarkIngestMessages measures the write path of the hub (store plus the
// projector's checks) for kind 9 messages, a fifth of them thread replies.
func BenchmarkIngestMessages(b *testing.B) {
	admin, _ := identity.GenerateKeys()
	hk, _ := identity.GenerateKeys()
	h, err := Open(Config{DBPath: filepath.Join(b.TempDir(), "hive.db"), Admin: admin.PublicHex, Keys: hk, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	sign := func(kind int, at int64, content string, tags ...nostr.Tag) *nostr.Event {
		ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Content: content, Tags: tags}
		ev.Sign(admin.SecretHex)
		return ev
	}
	if _, err := h.Store.Publish(ctx, sign(9007, 1, "", nostr.Tag{"h", "general"}, nostr.Tag{"name", "general"})); err != nil {
		b.Fatal(err)
	}
	root := sign(9, 2, "root", nostr.Tag{"h", "general"})
	h.Store.Publish(ctx, root)
	evs := make([]*nostr.Event, b.N)
	for i := range evs {
		tags := nostr.Tags{{"h", "general"}, {"p", admin.PublicHex}}
		if i%5 == 0 {
			tags = append(tags, nostr.Tag{"e", root.ID, "", "root"})
		}
		evs[i] = sign(9, int64(10+i), fmt.Sprint("message number ", i), tags...)
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, ev := range evs {
		wg.Add(1)
		if err := h.Store.PublishAsync(ctx, ev, func(_ []*nostr.Event, err error) {
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
