package hub

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// NIP-43 requests (spec/auth.md, "Invites (NIP-43)"): a key that is not a
// member completes AUTH as a guest and may send a join request (28934) with
// an invite claim; a member may send a leave request (28936). The hub
// answers both itself, with an 8000 or an 8001 it signs.

// joinWindow: a join or leave request's created_at is now, give or take
// (NIP-43), so a captured one cannot be replayed later.
const joinWindow = 5 * time.Minute

// guestRefusal is what a key that is not a member is told: at AUTH (OK true,
// it stays as a guest when invites are on) and for everything it sends but a
// join request.
func (h *Hub) guestRefusal(c *relay.Conn, refusal string) string {
	if h.invites == InvitesOff || !strings.HasPrefix(refusal, "restricted: ") {
		return refusal
	}
	c.AllowGuest()
	who := "a hub admin"
	if h.invites == InvitesMembers {
		who = "a hub member"
	}
	base, _, _ := strings.Cut(refusal, ";")
	return base + "; join with an invite from " + who + ", ask a hub admin to add you, or authenticate with your owner's NIP-OA auth tag"
}

// request judges a NIP-43 join (28934) or leave (28936) request whose
// signature the relay verified, from a guest (c.PubKey() == "") or an
// authenticated connection.
func (h *Hub) request(ctx context.Context, c *relay.Conn, ev *nostr.Event) (bool, string, bool) {
	if d := h.now().Sub(ev.CreatedAt.Time()); d > joinWindow || d < -joinWindow {
		return false, fmt.Sprintf("invalid: a join or leave request must be dated within %s of the hub's clock", joinWindow), false
	}
	if ev.Kind == kinds.RelayLeave {
		ok, msg := h.leave(ctx, c, ev)
		return ok, msg, false
	}
	return h.join(ctx, c, ev)
}

// join admits a guest whose claim holds with a hub-signed 8000 naming the
// claim and its issuer; a member is told it is one.
func (h *Hub) join(ctx context.Context, c *relay.Conn, ev *nostr.Event) (bool, string, bool) {
	if c.PubKey() != "" {
		return true, "duplicate: you are already a member of this hub", false
	}
	code := tagValue(ev, "claim")
	if code == "" {
		return false, "restricted: a join request needs an invite code (its claim tag); ask a hub member for an invite link", false
	}
	cl, err := h.parseClaim(code)
	if err != nil {
		return false, err.Error(), false
	}
	if now := h.now().Unix(); now >= cl.expires {
		return false, fmt.Sprintf("restricted: that invite code expired at %s; ask for a new one", time.Unix(cl.expires, 0).UTC().Format(time.RFC3339)), false
	}
	if why := h.mayInvite(h.snapshotView(), cl.issuer); why != "" {
		npub, _ := nip19.EncodePublicKey(cl.issuer)
		return false, "restricted: that invite code was revoked: its issuer " + npub + " may no longer invite (" + strings.TrimPrefix(why, "restricted: ") + ")", false
	}
	add, err := h.sign(kinds.HubMemberAdd, "", nostr.Tags{{"-"}, {"p", ev.PubKey}, {"claim", cl.id, strconv.Itoa(cl.uses)}, {"issuer", cl.issuer}}, h.now().Unix())
	if err != nil {
		return false, "error: " + err.Error(), false
	}
	if msg := h.publishOwn(ctx, add); msg != "" {
		return false, msg, false
	}
	h.log.Info("admitted by invite", "pubkey", ev.PubKey, "issuer", cl.issuer, "claim", cl.id)
	return true, "info: welcome to " + h.Relay.Config().PublicURLs[0] + "!", true
}

// leave removes a member who asks to (a hub-signed 8001); its connections
// are cut off as after an admin's 8001. The configured admin, a guest and an
// agent or device (its owner revokes it) cannot leave this way.
func (h *Hub) leave(ctx context.Context, c *relay.Conn, ev *nostr.Event) (bool, string) {
	switch pk := c.PubKey(); {
	case pk == "":
		return false, "restricted: only a hub member can leave the hub; this key is not one"
	case ev.PubKey == h.admin:
		return false, "restricted: the hub's configured admin cannot leave its hub"
	case c.Owner() != "":
		return false, "restricted: an agent or device does not leave the hub itself; its owner revokes it (hive device revoke, hive agent revoke)"
	}
	rm, err := h.sign(kinds.HubMemberRemove, "", nostr.Tags{{"-"}, {"p", ev.PubKey}}, h.now().Unix())
	if err != nil {
		return false, "error: " + err.Error()
	}
	if msg := h.publishOwn(ctx, rm); msg != "" {
		return false, msg
	}
	h.log.Info("left the hub", "pubkey", ev.PubKey)
	return true, "info: you left the hub"
}

// publishOwn stores an event the hub signed and hands it, and what it
// derived, to live subscribers; it returns a refusal, or "".
func (h *Hub) publishOwn(ctx context.Context, ev *nostr.Event) string {
	derived, err := h.Store.Publish(ctx, ev)
	var r *store.Rejection
	switch {
	case errors.As(err, &r):
		return r.Msg
	case err != nil:
		h.log.Warn("storing a hub-signed membership event", "kind", ev.Kind, "err", err)
		return "error: the hub could not store the membership change; try again"
	}
	h.Relay.Broadcast(ev)
	for _, d := range derived {
		h.Relay.Broadcast(d)
	}
	return ""
}

// recordKey writes the hub's own key to hub_keys (before the rebuild at
// start), so its 8000s and 8001s hold wherever the log is replayed.
func (h *Hub) recordKey() error {
	if h.keys.PublicHex == "" {
		return nil
	}
	return h.Store.Exec(context.Background(), func(tx store.WriteTx) error {
		_, err := tx.Exec(`INSERT INTO hub_keys (pubkey) VALUES (?) ON CONFLICT (pubkey) DO NOTHING`, h.keys.PublicHex)
		return err
	})
}
