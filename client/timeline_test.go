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
// second (the hub cuts its pages by id within a second), and though one
// second holds more rows than four pages (a page completes the second it
// was cut in), ending where the channel starts.
func TestLoadOlderPagesEveryRowOnce(t *testing.T) {
	th, admin := startHubAdmin(t)
	alice := connect(t, th.URL, th.member(t, admin), client.Options{})
	ctx := ctxT(t, 30*time.Second)
	for _, layout := range []struct {
		name   string
		second func(i int) nostr.Timestamp
	}{
		{"five-a-second", func(i int) nostr.Timestamp { return nostr.Timestamp(i / 5) }},
		{"one-burst", func(i int) nostr.Timestamp { return nostr.Timestamp(min(i, 5)) }},
	} {
		if _, err := alice.Publish(ctx, client.ChannelCreate(layout.name, layout.name, client.Open)); err != nil {
			t.Fatal(err)
		}
		start := nostr.Now() - 100
		var sent []string
		for i := 0; i < 40; i++ {
			ev := client.Message(layout.name, fmt.Sprintf("message %d", i))
			ev.CreatedAt = start + layout.second(i)
			ev.Tags = append(ev.Tags, nostr.Tag{"ms", fmt.Sprint(i % 1000)})
			stored, err := alice.Publish(ctx, ev)
			if err != nil {
				t.Fatal(err)
			}
			sent = append(sent, stored.ID)
		}
		m := alice.NewModel()
		p, err := alice.LoadPage(ctx, m, layout.name, 8, nil)
		pages := 1
		for ; err == nil && !p.Start; pages++ {
			if pages > 20 {
				t.Fatalf("%s: paging does not end", layout.name)
			}
			p, err = alice.LoadOlder(ctx, m, layout.name, 8)
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range m.Timeline(layout.name) {
			if !r.System {
				got = append(got, r.ID)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(sent) {
			t.Fatalf("%s: after %d pages the timeline holds %d rows:\n got %v\nwant %v", layout.name, pages, len(got), got, sent)
		}
	}
}
