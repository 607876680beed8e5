package client

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// AgentProfile is an agent's kind 0 profile: its owner's auth tag (which
// tells the hub whose agent it is) and the bot marker.
func AgentProfile(name, about string, authTag nostr.Tag) nostr.Event {
	content, _ := json.Marshal(map[string]any{"name": name, "about": about, "bot": true})
	return ev(kinds.Profile, string(content), authTag, nostr.Tag{"bot"})
}

// AgentStatus is one of an owner's agents as the hub knows it.
type AgentStatus struct {
	Agent      string `json:"agent"`
	Npub       string `json:"npub"`
	Name       string `json:"name,omitempty"`
	Conditions string `json:"conditions"`
	ExpiresAt  *int64 `json:"expires_at"`
	Expired    bool   `json:"expired"`
	RevokedAt  *int64 `json:"revoked_at"`
	Revoked    bool   `json:"revoked"`
	// Run is what the agent's bridge says (hive agent list fills it; nil
	// when it publishes no status).
	Run *AgentState `json:"run,omitempty"`
}

// State is "active", "expired" or "revoked".
func (a AgentStatus) State() string {
	switch {
	case a.Revoked:
		return "revoked"
	case a.Expired:
		return "expired"
	}
	return "active"
}

// Agents lists the agents whose profiles carry an auth tag by the client's
// key, with their expiry and the client's revocations, sorted by name.
// Paired devices are listed by Devices.
func (c *Client) Agents(ctx context.Context, now time.Time) ([]AgentStatus, error) {
	return c.attested(ctx, now, false)
}

// attested lists the keys whose profiles carry an auth tag by the client's
// key: device attestations when devices, else agent ones.
func (c *Client) attested(ctx context.Context, now time.Time, devices bool) ([]AgentStatus, error) {
	me := c.keys.PublicHex
	profiles, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Limit: 5000})
	if err != nil {
		return nil, err
	}
	revs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.AgentRevocation}, Authors: []string{me}, Limit: 5000})
	if err != nil {
		return nil, err
	}
	revokedAt := map[string]int64{}
	for _, ev := range revs {
		if _, agent, at, err := identity.ParseRevocation(&ev); err == nil {
			revokedAt[agent] = at
		}
	}
	rows := []AgentStatus{}
	for _, ev := range profiles {
		tag, err := identity.FindAuthTag(&ev)
		if err != nil {
			continue
		}
		a, err := identity.VerifyAuthTag(tag, ev.PubKey)
		if err != nil || a.Owner != me || a.Device != devices {
			continue
		}
		npub, _ := nip19.EncodePublicKey(ev.PubKey)
		row := AgentStatus{Agent: ev.PubKey, Npub: npub, Conditions: a.RawConditions}
		var meta struct{ Name string }
		json.Unmarshal([]byte(ev.Content), &meta)
		row.Name = meta.Name
		if exp, ok := a.Conditions.Expiry(); ok {
			row.ExpiresAt, row.Expired = &exp, now.Unix() >= exp
		}
		if at, ok := revokedAt[ev.PubKey]; ok {
			row.RevokedAt, row.Revoked = &at, identity.RevokedBy(a.Conditions, at)
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name+rows[i].Agent < rows[j].Name+rows[j].Agent })
	return rows, nil
}
