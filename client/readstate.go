package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// Read state is the member's, across all of its keys (spec/channels.md,
// "Read state"): each key writes its own kind 30078 event per context, the
// position in clear; the hub lets every key of the member, and nobody
// else, read them, and never lets one key's position move backwards; a
// context's position is the merge over the member's keys
// (kinds.ReadPosition.Merge: the later second, or more rows of one second).

// ReadStatePrefix starts the d tag of read-state events.
const ReadStatePrefix = kinds.ReadStatePrefix

// ReadState marks context read up to at: a channel id, "thread:<root id>"
// or "msg:<id>". The position is in clear (the member's devices do not hold
// the member's key); the hub serves it to the member's keys only.
func (c *Client) ReadState(context string, at chat.Position) (nostr.Event, error) {
	if at.At < 0 {
		return nostr.Event{}, fmt.Errorf("read position %d is negative", at.At)
	}
	return ev(kinds.ReadState, at.String(), nostr.Tag{"d", ReadStatePrefix + context}), nil
}

// ParseReadState reads a read-state event of one of the member's keys into
// its context and position. An older event of the client's own key with the
// position NIP-44-encrypted to itself is read too.
func (c *Client) ParseReadState(e nostr.Event) (context string, at chat.Position, err error) {
	d := e.Tags.GetD()
	if e.Kind != kinds.ReadState || !strings.HasPrefix(d, ReadStatePrefix) {
		return "", at, fmt.Errorf("event %s is not a read-state event", e.ID)
	}
	at, err = kinds.ParseReadPosition(e.Content)
	if err != nil && e.PubKey == c.keys.PublicHex {
		ck, kerr := nip44.GenerateConversationKey(c.keys.PublicHex, c.keys.SecretHex)
		if kerr != nil {
			return "", at, kerr
		}
		if pt, derr := nip44.Decrypt(e.Content, ck); derr == nil {
			at, err = kinds.ParseReadPosition(strings.TrimSpace(pt))
		}
	}
	if err != nil {
		return "", at, fmt.Errorf("read-state %s: %w", d, err)
	}
	return strings.TrimPrefix(d, ReadStatePrefix), at, nil
}

// readStateFilter asks for the read-state events the hub lets the client
// read: those of its member's keys (itself, its owner, their devices).
func readStateFilter(contexts ...string) nostr.Filter {
	f := nostr.Filter{Kinds: []int{kinds.ReadState}, Limit: 5000}
	for _, ctx := range contexts {
		if f.Tags == nil {
			f.Tags = nostr.TagMap{"d": nil}
		}
		f.Tags["d"] = append(f.Tags["d"], ReadStatePrefix+ctx)
	}
	return f
}

// ReadStates returns the member's read positions by context: for each, the
// merge over the read-state events of all of the member's keys.
func (c *Client) ReadStates(ctx context.Context) (chat.Positions, error) {
	evs, err := c.Query(ctx, readStateFilter())
	if err != nil {
		return nil, err
	}
	out := chat.Positions{}
	for _, e := range evs {
		context, at, err := c.ParseReadState(e)
		if err != nil {
			continue
		}
		out[context] = out[context].Merge(at)
	}
	return out, nil
}

// MarkRead advances the member's read position of context to at, never
// backwards: it writes the client's own key's event with the member's
// position merged with at, nothing when that reads no more than the
// member's position already does. When the hub refuses it as not newer (the
// same key marked from another machine meanwhile) it reads the positions
// again and, if still behind, writes once more a second after the stored
// event; when it refuses a position naming rows as invalid (content longer
// than the hub takes) it writes the plain position of that second.
func (c *Client) MarkRead(ctx context.Context, context string, at chat.Position) error {
	for range 3 {
		evs, err := c.Query(ctx, readStateFilter(context))
		if err != nil {
			return err
		}
		var merged chat.Position
		var mine nostr.Timestamp
		for _, e := range evs {
			if _, pos, err := c.ParseReadState(e); err == nil {
				merged = merged.Merge(pos)
			}
			if e.PubKey == c.keys.PublicHex {
				mine = max(mine, e.CreatedAt)
			}
		}
		next := at.Merge(merged)
		if !next.Above(merged) {
			return nil
		}
		e, err := c.ReadState(context, next)
		if err != nil {
			return err
		}
		e.CreatedAt = max(nostr.Now(), mine+1)
		_, err = c.Publish(ctx, e)
		var re *RefusedError
		switch {
		case err != nil && errors.As(err, &re) && re.Prefix == "invalid" && next.IDs != nil:
			at = kinds.ReadAt(next.At) // a hub that takes less content (a small limit): the plain position
		case err == nil || !errors.As(err, &re) || !strings.HasPrefix(re.Reason, "duplicate:"):
			return err
		}
	}
	return fmt.Errorf("marking %s read: the hub kept refusing the position as not newer", context)
}

// FollowReadStates calls fn with each read position the member's keys write
// from now on (a context and its new position), until ctx ends or the
// subscription does; it returns why.
func (c *Client) FollowReadStates(ctx context.Context, fn func(context string, at chat.Position)) error {
	since := nostr.Now()
	f := readStateFilter()
	f.Since, f.Limit = &since, 0
	sub, err := c.Subscribe(ctx, f)
	if err != nil {
		return err
	}
	defer sub.Close()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-sub.Events():
			if !ok {
				return sub.Err()
			}
			if context, at, err := c.ParseReadState(e); err == nil {
				fn(context, at)
			}
		}
	}
}
