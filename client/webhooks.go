package client

import (
	"context"
	"fmt"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/webhook"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// HubKey is the key the hub signs its own events with (hex): the author
// of its newest member list (13534), which it signs at every start.
func (c *Client) HubKey(ctx context.Context) (string, error) {
	evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.HubMemberList}, Limit: 1})
	if err != nil {
		return "", err
	}
	if len(evs) == 0 {
		return "", wrap(ErrNotFound, fmt.Errorf("the hub has signed no member list: its key is unknown"))
	}
	return evs[0].PubKey, nil
}

// Hook is the webhook of workflow w (the newest 30462 at its address,
// whoever of the channel's owners and admins set it), or nil when it has
// none or it was deleted.
func (c *Client) Hook(ctx context.Context, w Workflow) (*nostr.Event, error) {
	evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.WorkflowHook}, Tags: nostr.TagMap{"d": {w.Address()}}, Limit: 100})
	if err != nil {
		return nil, err
	}
	var newest *nostr.Event
	for i := range evs {
		if newest == nil || webhook.Newer(&evs[i], newest) {
			newest = &evs[i]
		}
	}
	if newest == nil || tagOf(*newest, "w") == "" {
		return nil, nil
	}
	return newest, nil
}

// HookEvent is the unsigned event setting w's webhook to hook id and
// secret, sealed (NIP-44) from this client's key to the hub's key hub; an
// empty hook id deletes the webhook. It is dated after cur, the webhook
// it replaces (nil: none), so that it is the newer even within a second.
func (c *Client) HookEvent(w Workflow, cur *nostr.Event, hub, hook, secret string) (nostr.Event, error) {
	addr := w.Address()
	at := nostr.Now()
	if cur != nil && at <= cur.CreatedAt {
		at = cur.CreatedAt + 1
	}
	ev := nostr.Event{Kind: kinds.WorkflowHook, CreatedAt: at, Tags: nostr.Tags{{"d", addr}, {"h", w.Channel}, {"a", addr}}}
	if hook == "" {
		return ev, nil
	}
	ck, err := nip44.GenerateConversationKey(hub, c.keys.SecretHex)
	if err != nil {
		return ev, err
	}
	if ev.Content, err = nip44.Encrypt(secret, ck); err != nil {
		return ev, err
	}
	ev.Tags = append(ev.Tags, nostr.Tag{"w", hook})
	return ev, nil
}
