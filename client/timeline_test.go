package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
)

// Paging a channel backwards from its newest page through the real hub
// loads every row once, in send order, though five of them share each
// second (the hub cuts its pages by id within a second).
func TestLoadOlderPagesEveryRowOnce(t *testing.T) {
	th := startHub(t, nil)
	admin := connect(t, th.URL, th.admin, client.Options{})
	alice := connect(t, th.URL, th.member(t, admin), client.Options{})
	ctx := ctxT(t, 30*time.Second)
	if _, err := alice.Publish(ctx, client.ChannelCreate("paged", "Paged", client.Open)); err != nil {
		t.Fatal(err)
	}
	start := nostr.Now() - 100
	var sent []string
	for i := 0; i < 35; i++ {
		ev := client.Message("paged", fmt.Sprintf("message %d", i))
		ev.CreatedAt = start + nostr.Timestamp(i/5)
		ev.Tags = append(ev.Tags, nostr.Tag{"ms", fmt.Sprint(100 * (i % 5))})
		stored, err := alice.Publish(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, stored.ID)
	}
	m := alice.NewModel()
	if _, err := alice.LoadPage(ctx, m, "paged", 8, nil); err != nil {
		t.Fatal(err)
	}
	pages := 1
	for {
		n, err := alice.LoadOlder(ctx, m, "paged", 8)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if pages++; pages > 20 {
			t.Fatal("paging does not end")
		}
	}
	var got []string
	for _, r := range m.Timeline("paged") {
		if !r.System {
			got = append(got, r.ID)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(sent) {
		t.Fatalf("after %d pages the timeline holds %d rows:\n got %v\nwant %v", pages, len(got), got, sent)
	}
}
