package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// authorsNamed resolves from:NAME: a hex pubkey or npub stands for itself;
// any other name for the authors whose stored profile (kind 0) has that
// name or display_name, ignoring case and a leading @.
func (c *Core) authorsNamed(ctx context.Context, names []string) ([]string, error) {
	var out, byName []string
	for _, n := range names {
		n = strings.TrimPrefix(n, "@")
		switch {
		case nostr.IsValid32ByteHex(n):
			out = append(out, strings.ToLower(n))
		case strings.HasPrefix(n, "npub1"):
			if _, pk, err := nip19.Decode(n); err == nil {
				out = append(out, pk.(string))
			}
		default:
			byName = append(byName, strings.ToLower(n))
		}
	}
	if len(byName) == 0 {
		return out, nil
	}
	err := c.eachOfKind(ctx, kinds.Profile, func(ev *nostr.Event) {
		var p struct {
			Name        string `json:"name"`
			DisplayName string `json:"display_name"`
		}
		if json.Unmarshal([]byte(ev.Content), &p) != nil {
			return
		}
		if slices.Contains(byName, strings.ToLower(p.Name)) || slices.Contains(byName, strings.ToLower(p.DisplayName)) {
			out = append(out, ev.PubKey)
		}
	})
	return out, err
}

// channelsNamed resolves in:CHANNEL: a channel id stands for itself, and a
// name for the channels whose metadata (kind 39000) has that name,
// ignoring case and a leading #.
func (c *Core) channelsNamed(ctx context.Context, names []string) ([]string, error) {
	var out, lower []string
	for _, n := range names {
		n = strings.TrimPrefix(n, "#")
		out = append(out, n)
		lower = append(lower, strings.ToLower(n))
	}
	err := c.eachOfKind(ctx, kinds.GroupMetadata, func(ev *nostr.Event) {
		if t := ev.Tags.Find("name"); t != nil && slices.Contains(lower, strings.ToLower(t[1])) {
			out = append(out, ev.Tags.GetD())
		}
	})
	return out, err
}

// eachOfKind calls fn with every stored event of kind k (a few: profiles,
// channel metadata, one per member or channel).
func (c *Core) eachOfKind(ctx context.Context, k int, fn func(*nostr.Event)) error {
	var a Args
	rows, err := c.db.Read(ctx, "SELECT e.raw FROM events e WHERE e.kind = "+a.Add(k), a...)
	if err != nil {
		return fmt.Errorf("error: search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return fmt.Errorf("error: search: %w", err)
		}
		ev := &nostr.Event{}
		if ev.UnmarshalJSON(raw) == nil {
			fn(ev)
		}
	}
	return rows.Err()
}
