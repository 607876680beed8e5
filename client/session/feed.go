package session

import (
	"context"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// FeedFilters are the live feed's filters over the member's channels from
// since: profiles, presence and channel changes; the read positions of all
// of the member's keys (the hub serves only those); deletions and
// reactions (neither needs an h tag); the channels' rows, overlays and
// typing. web/src/hub/follow.js asks the same (spec/fixtures/session/feed.json).
func FeedFilters(channels []string, since nostr.Timestamp) []nostr.Filter {
	fs := []nostr.Filter{
		{Kinds: []int{kinds.Profile, kinds.Presence, kinds.GroupMetadata, kinds.GroupMembers, kinds.DeleteGroup}, Since: &since},
		{Kinds: []int{kinds.ReadState}, Since: &since},
		{Kinds: []int{kinds.Deletion, kinds.Reaction}, Since: &since},
	}
	if len(channels) > 0 {
		live := append(append(client.TimelineKinds(), client.OverlayKinds()...), kinds.Typing)
		fs = append(fs, nostr.Filter{Kinds: live, Tags: nostr.TagMap{"h": channels}, Since: &since})
	}
	return fs
}

// feedUp marks, in a batch, that the live subscription is on the wire
// (what others answer from then on reaches the session).
const feedUp = -2

// flushEvery bounds how long an event waits in a batch.
const flushEvery = 30 * time.Millisecond

// Batch is events from the hub: live (the feed's), or a page or profiles.
type Batch struct {
	Events []nostr.Event
	Live   bool
}

// FeedEnded says the live subscription ended for good.
type FeedEnded struct{ Err error }

// feed is one live subscription and its batches.
type feed struct {
	out  chan Event
	stop context.CancelFunc
}

// Follow (re)starts the live feed over the member's channels from since.
// The client resubscribes after a reconnect from the newest event seen and
// drops what it already delivered; the chat model ignores a duplicate id.
// One batch waits at most: an event goes out at once when the surface has
// taken the last batch, and events coming faster than it draws gather into
// the next one (flushed at the latest every 30 ms). Next hands them.
func (s *Session) Follow(ctx context.Context, since nostr.Timestamp) {
	if s.feed != nil {
		s.feed.stop()
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &feed{out: make(chan Event, 1), stop: cancel}
	s.feed = f
	go f.run(ctx, s.c, FeedFilters(s.feedChannels(), since))
}

// Next waits for the live feed's next Batch (or FeedEnded); nil without a
// feed. A feed restarted meanwhile ends the wait with nil: the new one has
// its own Next.
func (s *Session) Next() Job {
	if s.feed == nil {
		return nil
	}
	out := s.feed.out
	return func(context.Context) Event {
		ev, ok := <-out
		if !ok {
			return nil
		}
		return ev
	}
}

func (f *feed) run(ctx context.Context, c *client.Client, filters []nostr.Filter) {
	defer close(f.out)
	evc := make(chan nostr.Event, 256)
	errc := make(chan error, 1)
	go func() {
		sub, err := c.Subscribe(ctx, filters...)
		if err != nil {
			errc <- err
			return
		}
		select {
		case evc <- nostr.Event{Kind: feedUp}:
		case <-ctx.Done():
		}
		errc <- c.FollowSub(ctx, sub, func(ev nostr.Event) (bool, error) {
			select {
			case evc <- ev:
			case <-ctx.Done():
			}
			return false, nil
		})
	}()
	var batch []nostr.Event
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	for {
		select {
		case ev := <-evc:
			batch = append(batch, ev)
			select {
			case f.out <- Batch{Events: batch, Live: true}:
				batch = nil
			default:
			}
		case <-flush.C:
			if len(batch) == 0 {
				continue
			}
			select {
			case f.out <- Batch{Events: batch, Live: true}:
				batch = nil
			case <-ctx.Done():
				return
			}
		case err := <-errc:
			if ctx.Err() == nil {
				select {
				case f.out <- FeedEnded{Err: err}:
				case <-ctx.Done():
				}
			}
			return
		}
	}
}
