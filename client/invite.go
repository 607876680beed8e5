package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// NIP-43 invites (spec/auth.md, "Invites (NIP-43)"). A hub answers the AUTH
// of a key that is not a member OK true with its refusal as the message (a
// guest: it may only send a join request); with Options.Invite the client
// then sends the join request and, once the hub admitted the key, goes on
// as a member on the same connection.

// isGuest reports whether an AUTH's OK true message says the key is a guest.
func isGuest(msg string) bool { return strings.HasPrefix(msg, "restricted: ") }

// join sends a join request with the invite claim on a guest connection and
// waits for its OK.
func (c *Client) join(cn *conn, authID string) error {
	ev, err := c.Sign(JoinRequest(c.opts.Invite))
	if err != nil {
		return err
	}
	if err := cn.write(c.opts.Timeout, []any{"EVENT", ev}); err != nil {
		return fmt.Errorf("%s: sending the join request: %w", cn.url, err)
	}
	for {
		_, b, err := cn.ws.ReadMessage()
		if err != nil {
			return fmt.Errorf("%s: no answer to the join request: %w", cn.url, err)
		}
		var msg []json.RawMessage
		if json.Unmarshal(b, &msg) != nil || len(msg) < 4 || label(msg[0]) != "OK" || label(msg[1]) != ev.ID {
			continue
		}
		if string(msg[2]) == "true" {
			c.opts.Log.Info("joined the hub with an invite", "url", cn.url, "msg", label(msg[3]))
			return nil
		}
		return wrap(ErrAuth, &AuthRefusedError{Npub: c.keys.Npub(), URL: cn.url, Reason: label(msg[3]), Join: true})
	}
}

// JoinRequest is a NIP-43 join request (kind 28934) carrying claim, as
// flotilla sends it plus NIP-70's `-`.
func JoinRequest(claim string) nostr.Event {
	return nostr.Event{Kind: kinds.RelayJoin, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"-"}, {"claim", claim}}}
}

// Invite is an invite claim the hub made, with the link that carries it.
type Invite struct {
	ID      string    `json:"id"` // what hive invite --revoke and a revocation (kind 30451) name
	Claim   string    `json:"claim"`
	Link    string    `json:"link"`
	Hub     string    `json:"hub"`
	Uses    int       `json:"uses"`
	Expires time.Time `json:"expires"`
}

// NewInvite asks the hub for an invite claim (a REQ for kind 28935) that
// admits up to uses keys within life (0: the hub's defaults).
func (c *Client) NewInvite(ctx context.Context, uses int, life time.Duration) (Invite, error) {
	f := nostr.Filter{Kinds: []int{kinds.RelayInvite}, Limit: 1, Tags: nostr.TagMap{}}
	if uses > 0 {
		f.Tags["u"] = []string{strconv.Itoa(uses)}
	}
	if life > 0 {
		f.Tags["x"] = []string{strconv.FormatInt(int64(life/time.Second), 10)}
	}
	evs, err := c.Query(ctx, f)
	if err != nil {
		return Invite{}, err
	}
	for _, ev := range evs {
		claim := tagVal(ev.Tags, "claim")
		if ev.Kind != kinds.RelayInvite || claim == "" {
			continue
		}
		inv := Invite{Claim: claim, Hub: c.URL()}
		inv.ID, _ = kinds.InviteClaimID(claim)
		inv.Uses, _ = strconv.Atoi(tagVal(ev.Tags, "u"))
		if exp, err := strconv.ParseInt(tagVal(ev.Tags, "expiration"), 10, 64); err == nil {
			inv.Expires = time.Unix(exp, 0).UTC()
		}
		inv.Link = InviteLink(inv.Hub, claim)
		return inv, nil
	}
	return Invite{}, wrap(ErrNotFound, fmt.Errorf("the hub made no invite claim"))
}

// InviteRevocation is a hub admin's revocation (kind 30451) of one invite
// claim: what may be a link, a claim or a claim's id; the claim admits no
// key after it.
func InviteRevocation(what string) (nostr.Event, error) {
	id := strings.TrimSpace(what)
	if !kinds.IsInviteClaimID(id) {
		_, claim, err := ParseInvite(what)
		if err != nil {
			return nostr.Event{}, err
		}
		if id, err = kinds.InviteClaimID(claim); err != nil {
			return nostr.Event{}, err
		}
	}
	return nostr.Event{Kind: kinds.InviteRevocation, CreatedAt: nostr.Now(), Tags: nostr.Tags{{"d", id}}}, nil
}

func tagVal(tags nostr.Tags, name string) string {
	if t := tags.Find(name); len(t) >= 2 {
		return t[1]
	}
	return ""
}

// InviteLink is the link that carries an invite: the hub's web chat
// (https for wss, http for ws) with the hub's URL in r and the claim in c,
// the query flotilla's invite links use, so the same link works in hive's
// CLI and web chat and in flotilla.
func InviteLink(hub, claim string) string {
	u, err := url.Parse(hub)
	if err != nil {
		return ""
	}
	page := *u
	page.Scheme = map[string]string{"wss": "https", "ws": "http"}[u.Scheme]
	page.Path = strings.TrimRight(u.Path, "/") + "/"
	page.RawQuery = url.Values{"r": {hub}, "c": {claim}}.Encode()
	return page.String()
}

// ParseInvite reads an invite as a person pastes it: a link (the hub's URL
// in r, the claim in c) or the bare claim. hub is "" for a bare claim.
func ParseInvite(s string) (hub, claim string, err error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		if s == "" || strings.ContainsAny(s, " \t/?&=") {
			return "", "", fmt.Errorf("%q is neither an invite link nor an invite claim", s)
		}
		return "", s, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", "", fmt.Errorf("invite link: %v", err)
	}
	q := u.Query()
	claim, hub = q.Get("c"), q.Get("r")
	if claim == "" {
		return "", "", fmt.Errorf("invite link %q carries no claim (its c parameter)", s)
	}
	if hub != "" && !strings.Contains(hub, "://") {
		hub = "wss://" + hub // flotilla's links name the relay without its scheme
	}
	return hub, claim, nil
}
