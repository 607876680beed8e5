package chat_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

var keys = []string{
	"0212a0665ddc4e2d9d466e0d2d1f1e41261fe9baf7522ff06f15512d34e5ebb6",
	"e42c088336bf12314b49251b2149ccfd2eb0f03a6f75fa99f12e159ff2d751ee",
	"bc26df1e3180a4184f3f7370a4b8b8f6713bd1234d960632dbbe43dcf90462de",
	"037d234fad80201dd12c3060872b71398b83b45765d263e32c90eadf4f754c34",
}

// randomLog is a log of n events in two channels over a few seconds (many
// same-second ties, some without an ms tag, replies whose clock is behind
// their question's) with edits, reactions, deletes and retractions of all
// of them. Its ids are random, so id order says nothing.
func randomLog(rng *rand.Rand, n int) []nostr.Event {
	var log, msgs, overlays []nostr.Event
	id := func() string { return fmt.Sprintf("%016x", rng.Uint64()) }
	for len(log) < n {
		at := nostr.Timestamp(1700000000 + rng.Intn(12))
		pk := keys[rng.Intn(len(keys))]
		ev := nostr.Event{ID: id(), PubKey: pk, CreatedAt: at, Tags: nostr.Tags{}}
		if rng.Intn(3) > 0 {
			ev.Tags = append(ev.Tags, nostr.Tag{"ms", fmt.Sprint(rng.Intn(1000))})
		}
		switch p := rng.Intn(100); {
		case p < 45 || len(msgs) == 0:
			ev.Kind = kinds.Message
			ch := []string{"c1", "c2"}[rng.Intn(2)]
			if len(msgs) > 0 && rng.Intn(2) == 0 {
				parent := msgs[rng.Intn(len(msgs))]
				ch = parent.Tags.Find("h")[1]
				root := kinds.ThreadRoot(&parent)
				ev.Tags = append(ev.Tags, nostr.Tag{"e", root, "", "root"})
				if root != parent.ID {
					ev.Tags = append(ev.Tags, nostr.Tag{"e", parent.ID, "", "reply"})
				}
				ev.CreatedAt = parent.CreatedAt - nostr.Timestamp(rng.Intn(2)) // a clock behind
			}
			if rng.Intn(4) == 0 {
				ev.Tags = append(ev.Tags, nostr.Tag{"p", keys[0], "", "mention"})
			}
			ev.Tags = append(ev.Tags, nostr.Tag{"h", ch})
			ev.Content = "m" + ev.ID[:4]
			msgs = append(msgs, ev)
		case p < 50:
			ev.Kind, ev.PubKey = kinds.SystemRow, "ff"
			ev.Tags = append(ev.Tags, nostr.Tag{"h", "c1"})
		case p < 62:
			t := msgs[rng.Intn(len(msgs))]
			ev.Kind, ev.Content = kinds.Edit, "edit "+ev.ID[:4]
			ev.Tags = append(ev.Tags, nostr.Tag{"h", t.Tags.Find("h")[1]}, nostr.Tag{"e", t.ID})
			overlays = append(overlays, ev)
		case p < 82:
			t := msgs[rng.Intn(len(msgs))]
			ev.Kind, ev.Content = kinds.Reaction, []string{"👍", "🎉", "", "+"}[rng.Intn(4)]
			ev.Tags = append(ev.Tags, nostr.Tag{"e", t.ID})
			overlays = append(overlays, ev)
		case p < 91:
			t := msgs[rng.Intn(len(msgs))]
			ev.Kind = kinds.DeleteInChannel
			ev.Tags = append(ev.Tags, nostr.Tag{"h", t.Tags.Find("h")[1]}, nostr.Tag{"e", t.ID})
		default:
			ev.Kind = kinds.Deletion
			if len(overlays) > 0 && rng.Intn(2) == 0 {
				ev.Tags = append(ev.Tags, nostr.Tag{"e", overlays[rng.Intn(len(overlays))].ID})
			} else {
				ev.Tags = append(ev.Tags, nostr.Tag{"e", msgs[rng.Intn(len(msgs))].ID})
			}
		}
		log = append(log, ev)
	}
	return log
}

// snapshot is every view of a model.
type snapshot struct {
	Timelines, Mains map[string][]chat.Row
	Threads          map[string][]chat.Row
	Unread           map[string]chat.Unread
}

func snap(m *chat.Model, log []nostr.Event, rp chat.Positions) snapshot {
	s := snapshot{map[string][]chat.Row{}, map[string][]chat.Row{}, map[string][]chat.Row{}, map[string]chat.Unread{}}
	for _, ch := range []string{"c1", "c2"} {
		s.Timelines[ch], s.Mains[ch] = m.Timeline(ch), m.Main(ch)
		s.Unread[ch] = m.Unread(ch, rp)
	}
	for _, e := range log {
		if e.Kind == kinds.Message {
			s.Threads[e.ID] = m.Thread(e.ID)
			s.Unread["thread:"+e.ID] = m.ThreadUnread(e.ID, rp)
		}
	}
	return s
}

// TestShuffledLog: a random log applied in any order, or twice, or in
// pages, gives the same views as applied in its own order; and in those
// views every reply comes after what it answers.
func TestShuffledLog(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewSource(seed))
		log := randomLog(rng, 400)
		rp := chat.Positions{"c1": kinds.ReadAt(1700000004), "c2": kinds.ReadAt(1700000007)}
		for _, e := range log[:40] {
			if e.Kind == kinds.Message {
				rp["thread:"+e.ID] = kinds.ReadAt(e.CreatedAt + 2)
			}
		}
		ref := chat.New(keys[0])
		ref.ApplyAll(log)
		want := snap(ref, log, rp)
		checkOrder(t, seed, ref, want)
		for run := 0; run < 5; run++ {
			sh := append([]nostr.Event(nil), log...)
			rng.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
			m := chat.New(keys[0])
			half := len(sh) / 2
			m.ApplyAll(sh[:half])
			snap(m, log, rp) // views read midway change nothing
			m.ApplyAll(sh[half:])
			m.ApplyAll(sh[:half])
			if got := snap(m, log, rp); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d run %d: shuffled log gives other views", seed, run)
			}
		}
	}
}

func checkOrder(t *testing.T, seed int64, m *chat.Model, s snapshot) {
	for ch, rows := range s.Timelines {
		pos := map[string]int{}
		for i, r := range rows {
			pos[r.ID] = i
		}
		for i, r := range rows {
			if p, ok := pos[r.ReplyTo]; ok && p >= i {
				t.Fatalf("seed %d %s: %s at %d before the message it answers (%d)", seed, ch, r.ID, i, p)
			}
			if r.Root != "" {
				if p, ok := pos[r.Root]; ok && p >= i {
					t.Fatalf("seed %d %s: %s before its root", seed, ch, r.ID)
				}
			}
		}
		for _, r := range rows {
			if r.Root == "" {
				continue
			}
			if root, ok := m.Row(r.Root); ok && root.Replies == 0 {
				t.Fatalf("seed %d: root %s of %s counts no reply", seed, r.Root, r.ID)
			}
		}
	}
}
