package client

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Channel is a channel as its hub-signed state events (39000, 39002) and its
// archiving (9008) describe it.
type Channel struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	About      string            `json:"about,omitempty"`
	Visibility string            `json:"visibility"`
	Type       string            `json:"type"`
	Archived   bool              `json:"archived"`
	Members    map[string]string `json:"members,omitempty"` // pubkey -> role
	Role       string            `json:"role,omitempty"`    // the client's role, "" if not a member
	Unread     *int              `json:"unread,omitempty"`
	Mentions   *int              `json:"mentions,omitempty"` // of the unread rows, those that mention the member
}

// ContentKinds are the kinds that are timeline rows (the content partition).
func ContentKinds() []int { return kinds.InPartition(kinds.Content) }

// OverlayKinds are the kinds that modify a row, fetched by #e.
func OverlayKinds() []int { return kinds.InPartition(kinds.AuxOverlay) }

// Channels returns the channels the client may see, sorted by name, with
// their members and the client's role.
func (c *Client) Channels(ctx context.Context) ([]Channel, error) {
	return c.channels(ctx, nil)
}

// channels loads the channels with the given ids (all for nil).
func (c *Client) channels(ctx context.Context, only []string) ([]Channel, error) {
	f := nostr.Filter{Kinds: []int{kinds.GroupMetadata}, Limit: 5000}
	if only != nil {
		f.Tags = nostr.TagMap{"d": only}
	}
	metas, err := c.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Channel{}
	var ids []string
	for _, m := range metas { // oldest first: the newest snapshot wins
		ch := channelFromMeta(m)
		if _, ok := byID[ch.ID]; !ok {
			ids = append(ids, ch.ID)
		}
		byID[ch.ID] = &ch
	}
	me := c.Member()
	if len(ids) > 0 {
		// Archived: a 9008 stands for it (the hub signs no 39000 after one).
		gone, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.DeleteGroup}, Tags: nostr.TagMap{"h": ids}, Limit: 5000})
		if err != nil {
			return nil, err
		}
		for _, d := range gone {
			if ch := byID[tagValueOf(&d, "h")]; ch != nil {
				ch.Archived = true
			}
		}
	}
	if len(ids) > 0 {
		rosters, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.GroupMembers}, Tags: nostr.TagMap{"d": ids}, Limit: 5000})
		if err != nil {
			return nil, err
		}
		for _, r := range rosters { // oldest first: the last one wins
			ch := byID[r.Tags.GetD()]
			if ch == nil {
				continue
			}
			ch.Members, ch.Role = map[string]string{}, ""
			for _, t := range r.Tags {
				if len(t) >= 3 && t[0] == "p" {
					ch.Members[t[1]] = t[2]
					if t[1] == me {
						ch.Role = t[2]
					}
				}
			}
		}
	}
	out := make([]Channel, 0, len(byID))
	for _, ch := range byID {
		out = append(out, *ch)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name+"\x00"+out[i].ID < out[j].Name+"\x00"+out[j].ID })
	return out, nil
}

func channelFromMeta(m nostr.Event) Channel {
	ch := Channel{ID: m.Tags.GetD(), Visibility: Open, Type: "stream"}
	for _, t := range m.Tags {
		if len(t) < 2 {
			continue
		}
		switch t[0] {
		case "name":
			ch.Name = chat.CleanName(t[1]) // as a member's name: nothing hidden or reordered
		case "about":
			ch.About = t[1]
		case "visibility":
			ch.Visibility = t[1]
		case "type":
			ch.Type = t[1]
		case "archived":
			ch.Archived = t[1] == "true"
		}
	}
	return ch
}

// ResolveChannel finds a channel by id, else by name. A name two channels
// share is a conflict naming their ids.
func (c *Client) ResolveChannel(ctx context.Context, arg string) (Channel, error) {
	if byID, err := c.channels(ctx, []string{arg}); err == nil && len(byID) == 1 {
		return byID[0], nil
	}
	all, err := c.Channels(ctx)
	if err != nil {
		return Channel{}, err
	}
	return resolveChannel(all, arg)
}

func resolveChannel(all []Channel, arg string) (Channel, error) {
	var byName []Channel
	for _, ch := range all {
		if ch.ID == arg {
			return ch, nil
		}
		if strings.EqualFold(ch.Name, arg) {
			byName = append(byName, ch)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return Channel{}, wrap(ErrNotFound, fmt.Errorf("no channel %q that you can see (see `hive channel list`)", arg))
	}
	var ids []string
	for _, ch := range byName {
		ids = append(ids, ch.ID)
	}
	return Channel{}, wrap(ErrDuplicate, fmt.Errorf("%d channels are named %q: give the id (%s)", len(byName), arg, strings.Join(ids, ", ")))
}

// unreadCap bounds the count of unread rows per channel (shown as "cap+").
const unreadCap = 500

// Unread counts, for each channel, the rows the member has not read and
// those that mention them, by the chat model's rule (spec/chat.md). A
// count of unreadCap means at least that many.
func (c *Client) Unread(ctx context.Context, channels []string) (map[string]chat.Unread, error) {
	rs, err := c.ReadStates(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]chat.Unread{}
	for _, ch := range channels {
		since := rs[ch].Since()
		m := c.NewModel()
		evs, err := c.Query(ctx, nostr.Filter{Kinds: ContentKinds(), Tags: nostr.TagMap{"h": {ch}}, Since: &since, Limit: unreadCap})
		var re *RefusedError
		if errors.As(err, &re) {
			continue // not readable (a private channel one left)
		}
		if err != nil {
			return nil, err
		}
		m.ApplyAll(evs)
		if err := c.LoadOverlays(ctx, m, evs); err != nil { // deleted rows are not unread
			return nil, err
		}
		if err := c.LoadNames(ctx, m, KeysShown(evs)...); err != nil { // the member's devices are the member
			return nil, err
		}
		out[ch] = m.Unread(ch, rs)
	}
	return out, nil
}

// Event fetches one event by id.
func (c *Client) Event(ctx context.Context, id string) (nostr.Event, error) {
	evs, err := c.Query(ctx, nostr.Filter{IDs: []string{id}})
	if err != nil {
		return nostr.Event{}, err
	}
	if len(evs) == 0 {
		return nostr.Event{}, wrap(ErrNotFound, fmt.Errorf("no event %s that you can read", id))
	}
	return evs[0], nil
}

// HubMembers returns the hub's members, the admin included: from the hub's
// NIP-43 member list (13534, sorted by key), else (a hub that signs none)
// from the add and remove events, in the order they were added.
func (c *Client) HubMembers(ctx context.Context) ([]string, error) {
	// The hub signs its member list (NIP-43 13534, the admin included);
	// only the hub's key may publish one.
	if lists, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.HubMemberList}, Limit: 1}); err != nil {
		return nil, err
	} else if len(lists) > 0 {
		var out []string
		for _, t := range lists[len(lists)-1].Tags {
			if len(t) >= 2 && t[0] == "member" {
				out = append(out, t[1])
			}
		}
		return out, nil
	}
	evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.HubMemberAdd, kinds.HubMemberRemove}, Limit: 5000})
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	var order []string
	for _, e := range evs {
		for _, t := range e.Tags {
			if len(t) < 2 || t[0] != "p" {
				continue
			}
			if e.Kind == kinds.HubMemberAdd {
				if !in[t[1]] {
					order = append(order, t[1])
				}
				in[t[1]] = true
			} else {
				in[t[1]] = false
			}
		}
	}
	var out []string
	for _, p := range order {
		if in[p] {
			out = append(out, p)
		}
	}
	return out, nil
}
