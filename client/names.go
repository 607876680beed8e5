package client

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// Directory loads every kind 0 profile the member can read into a names
// directory.
func (c *Client) Directory(ctx context.Context) (*chat.Names, error) {
	profs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Limit: 5000})
	if err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	n := chat.NewNames()
	for i := range profs {
		n.Apply(&profs[i])
	}
	return n, nil
}

// ResolveKey turns a key argument into a hex key: an npub, 64 hex digits,
// or a name (kind 0 name or display_name, ignoring case and a leading @).
// A name more than one key has is ambiguous: the error lists them.
func (c *Client) ResolveKey(ctx context.Context, arg string) (string, error) {
	if pk, err := identity.ParsePublicKey(arg); err == nil {
		return pk, nil
	}
	n, err := c.Directory(ctx)
	if err != nil {
		return "", err
	}
	return ResolveName(n, arg)
}

// ResolveName looks a name up in n (see ResolveKey).
func ResolveName(n *chat.Names, arg string) (string, error) {
	found := n.Lookup(arg)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", wrap(ErrNotFound, fmt.Errorf("no one named %q: give an npub, or a name from a profile (see `hive member list`)", arg))
	}
	var cands []string
	for _, pk := range found {
		npub, _ := nip19.EncodePublicKey(pk)
		cands = append(cands, n.Name(pk)+" "+npub)
	}
	return "", wrap(ErrDuplicate, fmt.Errorf("%d keys are named %q: give one of them (%s)", len(found), arg, strings.Join(cands, "; ")))
}

// MentionsIn finds the @name words of text that name exactly one key in
// n and returns those keys (each once, in order). A word that names no one
// is left as text; one that names several is an error listing them.
func MentionsIn(n *chat.Names, text string) ([]string, error) {
	var out []string
	for _, w := range strings.Fields(text) {
		if !strings.HasPrefix(w, "@") || len(w) < 2 {
			continue
		}
		name := strings.TrimRight(w[1:], ".,;:!?)")
		found := n.Lookup(name)
		if len(found) > 1 {
			_, err := ResolveName(n, name)
			return nil, err
		}
		if len(found) == 1 && !slices.Contains(out, found[0]) {
			out = append(out, found[0])
		}
	}
	return out, nil
}

// MemberProfile is a member's kind 0 profile: the name (and display name)
// others see instead of the key.
func MemberProfile(name, about string) nostr.Event {
	meta := map[string]any{"name": name, "display_name": name}
	if about != "" {
		meta["about"] = about
	}
	content, _ := json.Marshal(meta)
	return ev(kinds.Profile, string(content))
}
