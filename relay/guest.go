package relay

import (
	"context"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// NIP-43 on a closed hub: a key that admission refuses may still complete
// NIP-42 as a guest when an Admit hook allowed it (AllowGuest): its AUTH is
// answered OK true with the refusal as the message, so a client that knows
// tells a guest from a member without asking more. A guest is not
// authenticated for anything else: it keeps the budget, the slot and the
// auth timeout of an unauthenticated connection, and every EVENT, REQ and
// COUNT it sends is refused with that refusal, except a join or leave
// request (kinds 28934, 28936), which Hooks.Join judges. A join that admits
// the key makes the connection authenticated as it, through the same
// admission every AUTH goes through. A REQ that asks only for kind 28935 is
// answered by Hooks.Invite (an invite claim made for the asker), never from
// the log.

// JoinHook judges a NIP-43 join or leave request (kind 28934 or 28936,
// signed by the connection's key and verified) from a guest or an
// authenticated connection: whether to answer OK true, the message, and
// whether the key was admitted by it (the relay then authenticates a guest
// connection as it).
type JoinHook func(ctx context.Context, c *Conn, ev *nostr.Event) (ok bool, msg string, admitted bool)

// InviteHook answers a REQ for kind 28935 from an authenticated connection:
// the claim event made for it, or a refusal.
type InviteHook func(ctx context.Context, c *Conn, f nostr.Filter) (*nostr.Event, string)

// AllowGuest lets the key of the AUTH being admitted stay on the connection
// as a guest if admission refuses it. Admit hooks only.
func (c *Conn) AllowGuest() {
	c.mu.Lock()
	c.guestable = true
	c.mu.Unlock()
}

// Guest is the key of a guest connection ("" otherwise).
func (c *Conn) Guest() string { return c.who().guest }

// asGuest keeps a refused AUTH's key as the connection's guest when an
// Admit hook allowed it, and says whether it did.
func (c *Conn) asGuest(auth *nostr.Event, refusal string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ok := c.guestable && c.relay.Hooks.Join != nil && strings.HasPrefix(refusal, "restricted: ")
	c.guestable = false
	if ok {
		c.guestAuth, c.refusal = auth, refusal
		c.id = ident{guest: c.id.pubkey}
	} else {
		c.id = ident{}
	}
	return ok
}

// isRequest reports whether kind is a NIP-43 request the Join hook judges.
func isRequest(kind int) bool { return kind == kinds.RelayJoin || kind == kinds.RelayLeave }

// guestEvent handles an EVENT of a guest connection: a join or leave request
// goes to Hooks.Join; anything else is left to the caller, which refuses it
// with the admission's reason. It reports whether it answered ev.
func (c *Conn) guestEvent(ev *nostr.Event, start time.Time) bool {
	if c.Guest() == "" || !isRequest(ev.Kind) {
		return false
	}
	c.request(ev, start)
	return true
}

// request verifies a join or leave request and hands it to Hooks.Join; a
// guest the join admitted is then authenticated.
func (c *Conn) request(ev *nostr.Event, start time.Time) {
	if key := c.PubKey() + c.Guest(); ev.PubKey != key {
		c.reply(c.okFor(ev, start, false, "restricted: a join or leave request must be signed by the key this connection authenticated as"))
		return
	}
	if msg := c.relay.validate(ev); msg != "" {
		c.reply(c.okFor(ev, start, false, msg))
		return
	}
	ok, msg, admitted := c.relay.Hooks.Join(c.ctx, c, ev)
	if admitted && c.Guest() == ev.PubKey {
		if why := c.admitGuest(); why != "" {
			ok, msg = false, why
		}
	}
	c.reply(c.okFor(ev, start, ok, msg))
}

// admitGuest authenticates a guest connection as its key, through the Admit
// hooks and the member budget as an AUTH would, or says why not.
func (c *Conn) admitGuest() string {
	c.mu.Lock()
	auth := c.guestAuth
	c.id, c.guestAuth, c.refusal = ident{pubkey: c.id.guest}, nil, ""
	c.mu.Unlock()
	if msg := c.admit(auth); msg != "" {
		c.mu.Lock()
		c.id, c.refusal = ident{}, msg
		c.mu.Unlock()
		return msg
	}
	c.relay.log.Debug("admitted by a join request", "pubkey", auth.PubKey, "remote", c.remote)
	return ""
}

// inviteOnly reports whether every filter of a REQ asks for kind 28935 alone.
func inviteOnly(filters []nostr.Filter) bool {
	for _, f := range filters {
		if len(f.Kinds) != 1 || f.Kinds[0] != kinds.RelayInvite {
			return false
		}
	}
	return len(filters) > 0
}

// handleInvite answers a REQ for kind 28935: the claim made for this
// connection, then EOSE; no subscription is kept.
func (c *Conn) handleInvite(id string, filters []nostr.Filter) {
	if c.needsAuth() {
		c.reply(closedMsg(id, c.notAuthed("reading")))
		return
	}
	ev, msg := c.relay.Hooks.Invite(c.ctx, c, filters[0])
	if msg != "" {
		c.reply(closedMsg(id, msg))
		return
	}
	c.reply(text(eventPrefix(id), encodeEvent(ev), closeBracket))
	c.reply(eose(id))
}
