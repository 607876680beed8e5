package test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ainb/hive/relay"
	"github.com/nbd-wtf/go-nostr"
)

// An event committed just before a REQ is both in the REQ's stored answer and
// in the fan-out's queue (the OK goes out before the fan-out reaches it): the
// subscription must get it once. 300 other subscribers keep the fan-out busy
// so that it lags; a reader REQs right after each batch's last OK.
func TestNoDuplicateAcrossStoredAndLive(t *testing.T) {
	h := startOpenHub(t, relay.Config{})
	k := newKey(t)
	busy := make([]atomic.Int64, 300) // events each busy subscriber got
	for i := range busy {
		s := dialRaw(t, h.URL)
		s.send([]any{"REQ", "busy", nostr.Filter{Kinds: []int{1}, Limit: 1}})
		go func() {
			for {
				_, b, err := s.ws.ReadMessage()
				if err != nil {
					return
				}
				if strings.HasPrefix(string(b), `["EVENT"`) {
					busy[i].Add(1)
				}
			}
		}()
	}
	pub := dialRaw(t, h.URL)
	dupes, total := 0, 0
	for round := 0; round < 15; round++ {
		var last string
		for i := 0; i < 30; i++ {
			ev := k.sign(t, 1, fmt.Sprintf("round %d event %d", round, i), nostr.Tag{"t", fmt.Sprint(round)})
			pub.send([]any{"EVENT", ev})
			last = ev.ID
		}
		for {
			if m := pub.expect("OK"); str(m[1]) == last {
				break
			}
		}
		sub := fmt.Sprint("r", round)
		reader := dialRaw(t, h.URL) // a new one each round: a read timeout ends a gorilla connection
		reader.send([]any{"REQ", sub, nostr.Filter{Kinds: []int{1}, Tags: nostr.TagMap{"t": {fmt.Sprint(round)}}}})
		got := map[string]int{}
		deadline := time.Now().Add(5 * time.Second)
		eose := false
		for time.Now().Before(deadline) {
			reader.ws.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			_, b, err := reader.ws.ReadMessage()
			if err != nil {
				if eose {
					break // quiet for 300 ms after EOSE: the fan-out caught up
				}
				t.Fatalf("round %d: %v", round, err)
			}
			var m []json.RawMessage
			json.Unmarshal(b, &m)
			switch {
			case str(m[0]) == "EVENT" && str(m[1]) == sub:
				var ev nostr.Event
				json.Unmarshal(m[2], &ev)
				got[ev.ID]++
			case str(m[0]) == "EOSE" && str(m[1]) == sub:
				eose = true
			}
		}
		for _, n := range got {
			total++
			if n > 1 {
				dupes++
			}
		}
		if len(got) != 30 {
			t.Fatalf("round %d: %d distinct events, want 30", round, len(got))
		}
		reader.ws.Close()
	}
	if dupes > 0 {
		t.Fatalf("%d of %d events reached one subscription twice", dupes, total)
	}
	// Skipping a subscription that already had an event must not skip the
	// subscriptions after it: every busy subscriber gets every event.
	deadline := time.Now().Add(10 * time.Second)
	for i := range busy {
		for busy[i].Load() < int64(total) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := busy[i].Load(); n != int64(total) {
			t.Fatalf("busy subscriber %d got %d of %d events", i, n, total)
		}
	}
}
