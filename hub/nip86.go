package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/nip98"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// NIP-86 calls that change the hub (spec/protocol.md, "Administration
// (NIP-86)") are events in the log like every other change: the hub signs
// the event the call asks for (an 8000, an 8001, a 30461) carrying the
// admin's NIP-98 authorization and the call's body, and the kind's rule
// checks that the authorization's signer acts as a hub admin and asked for
// exactly this, at every write and every replay. The event's created_at is
// the authorization's, so the same authorization used again makes the same
// event, which the log refuses as a duplicate.

const (
	tagAuthorization = "nip98" // the NIP-98 event, as JSON
	tagCall          = "nip86" // the request body its payload hashes
)

// Hub information fields a NIP-86 call may change, as 30461's d tag names
// them, with the method that changes each.
var infoMethods = map[string]string{
	"changerelayname":        "name",
	"changerelaydescription": "description",
	"changerelayicon":        "icon",
}

// AdminMethods are the NIP-86 methods that write into the log, sorted.
func AdminMethods() []string {
	ms := []string{"allowpubkey", "disallowpubkey", "unallowpubkey"}
	for m := range infoMethods {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	return ms
}

// call is a NIP-86 request body.
type call struct {
	Method string `json:"method"`
	Params []any  `json:"params"`
}

// ParseCall reads a NIP-86 request body: its method and its parameters.
func ParseCall(body []byte) (method string, params []any, err error) {
	var c call
	if err := json.Unmarshal(body, &c); err != nil {
		return "", nil, errors.New("invalid: the body is not a NIP-86 request: want {\"method\": ..., \"params\": [...]}")
	}
	if c.Method == "" {
		return "", nil, errors.New("invalid: the request has no method")
	}
	return c.Method, c.Params, nil
}

// callEvent is the event a NIP-86 call that changes the hub asks for: its
// kind, the tags that say what it does, its content.
func callEvent(method string, params []any) (int, nostr.Tags, string, error) {
	str := func(i int, what string) (string, error) {
		if len(params) <= i {
			return "", fmt.Errorf("invalid: %s needs %s as parameter %d", method, what, i+1)
		}
		s, ok := params[i].(string)
		if !ok {
			return "", fmt.Errorf("invalid: %s's parameter %d (%s) must be a string", method, i+1, what)
		}
		return s, nil
	}
	switch method {
	case "allowpubkey", "disallowpubkey", "unallowpubkey":
		raw, err := str(0, "a pubkey")
		if err != nil {
			return 0, nil, "", err
		}
		pk, err := identity.ParsePublicKey(raw)
		if err != nil {
			return 0, nil, "", fmt.Errorf("invalid: %s: %q is not a pubkey (want 64 hex or npub1...)", method, truncate(raw, 100))
		}
		kind := kinds.HubMemberAdd
		if method != "allowpubkey" {
			kind = kinds.HubMemberRemove
		}
		return kind, nostr.Tags{{"p", pk}}, "", nil
	}
	field, ok := infoMethods[method]
	if !ok {
		return 0, nil, "", fmt.Errorf("invalid: method %q: hive does not do it (supportedmethods lists what it does)", truncate(method, 60))
	}
	v, err := str(0, "the new "+field)
	if err != nil {
		return 0, nil, "", err
	}
	if err := checkInfo(field, v); err != nil {
		return 0, nil, "", err
	}
	return kinds.HubInfo, nostr.Tags{{"d", field}}, v, nil
}

// checkInfo: a name is one line of at most 64 characters; a description at
// most 4,096 bytes; an icon an http(s) URL of at most 1,024 bytes; any may be
// empty (NIP-11 then leaves it out, or for the name shows the default).
func checkInfo(field, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("invalid: the %s must be UTF-8 text", field)
	}
	switch field {
	case "name":
		if utf8.RuneCountInString(v) > 64 || strings.ContainsFunc(v, unicode.IsControl) {
			return errors.New("invalid: the hub's name is one line of at most 64 characters")
		}
	case "description":
		if len(v) > 4096 {
			return errors.New("invalid: the hub's description is at most 4,096 bytes")
		}
	case "icon":
		if v == "" {
			return nil
		}
		u, err := url.Parse(v)
		if len(v) > 1024 || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return errors.New("invalid: the hub's icon must be an http(s) URL of at most 1,024 bytes")
		}
	}
	return nil
}

// Administer writes a NIP-86 call that changes the hub: the event it asks
// for, signed by the hub with auth and body, through the same rules as
// every event. auth must have passed nip98.Check. A refusal is an error
// whose message carries its NIP-01 prefix.
func (h *Hub) Administer(ctx context.Context, auth *nostr.Event, body []byte) error {
	if h.keys.SecretHex == "" {
		return errors.New("error: this hub has no key of its own to sign with")
	}
	method, params, err := ParseCall(body)
	if err != nil {
		return err
	}
	kind, tags, content, err := callEvent(method, params)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(auth)
	if err != nil {
		return err
	}
	tags = append(tags, nostr.Tag{tagAuthorization, string(raw)}, nostr.Tag{tagCall, string(body)})
	ev, err := h.sign(kind, content, tags, int64(auth.CreatedAt))
	if err != nil {
		return err
	}
	derived, err := h.Store.Publish(ctx, ev)
	if errors.Is(err, store.ErrDuplicate) {
		return errors.New("restricted: this NIP-98 authorization was already used; sign a new one")
	}
	if err != nil {
		return err
	}
	h.Relay.Broadcast(ev)
	for _, d := range derived {
		h.Relay.Broadcast(d)
	}
	h.log.Info("NIP-86 call", "method", method, "by", auth.PubKey, "event", ev.ID)
	return nil
}

// AdminActing says which hub admin pk acts as at created_at: pk itself, or
// the owner of a paired device whose attestation stands then. It returns
// the refusal when pk acts as no admin.
func (h *Hub) AdminActing(pk string, at int64) (string, string) {
	v := h.snapshotView()
	as, _ := actsAs(v, pk, at) // the view never fails
	if v.members[as] == roleAdmin {
		return as, ""
	}
	npub, _ := nip19.EncodePublicKey(pk)
	if as != pk {
		owner, _ := nip19.EncodePublicKey(as)
		return "", "restricted: " + npub + " is a device of " + owner + ", who is not a hub admin"
	}
	return "", "restricted: " + npub + " is not a hub admin; NIP-86 calls are for hub admins and their paired devices"
}

// Member is one hub member and its hub role ("admin" or "member").
type Member struct{ Pubkey, Role string }

// Members lists the hub's members, the configured admin included, sorted
// by pubkey.
func (h *Hub) Members() []Member {
	v := h.snapshotView()
	out := make([]Member, 0, len(v.members))
	for pk, r := range v.members {
		out = append(out, Member{pk, string(r)})
	}
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Pubkey, b.Pubkey) })
	return out
}

// authorizedAdmin checks an event carrying a NIP-86 call: the hub signed
// it, the authorization verifies and hashes the body, the body asks for
// exactly this event, and its signer acts as a hub admin then. It returns
// that admin.
func (t *tx) authorizedAdmin(ev *nostr.Event) (string, error) {
	if own, err := t.isHubKey(ev.PubKey); err != nil {
		return "", err
	} else if t.self != "" && !own { // any key a hub on this log signed with (hub_keys)
		return "", reject("restricted: only the hub writes a kind %d carrying a NIP-98 authorization (a NIP-86 call)", ev.Kind)
	}
	var auth nostr.Event
	if err := json.Unmarshal([]byte(tagValue(ev, tagAuthorization)), &auth); err != nil {
		return "", reject("invalid: the nip98 tag must hold a NIP-98 event")
	}
	body := []byte(tagValue(ev, tagCall))
	if err := nip98.Verify(&auth, "POST", body); err != nil {
		return "", reject("invalid: the NIP-98 authorization: %v", err)
	}
	if auth.CreatedAt != ev.CreatedAt {
		return "", reject("invalid: a NIP-86 event is dated as its authorization")
	}
	method, params, err := ParseCall(body)
	if err != nil {
		return "", reject("%v", err)
	}
	kind, tags, content, err := callEvent(method, params)
	if err != nil {
		return "", reject("%v", err)
	}
	if kind != ev.Kind || content != ev.Content || tagValue(ev, tags[0][0]) != tags[0][1] {
		return "", reject("invalid: this kind %d is not what its NIP-86 call (%s) asks for", ev.Kind, method)
	}
	by, err := actsAs(t, auth.PubKey, int64(auth.CreatedAt))
	if err != nil {
		return "", err
	}
	if r, err := t.hubRole(by); err != nil {
		return "", err
	} else if r != roleAdmin {
		npub, _ := nip19.EncodePublicKey(auth.PubKey)
		return "", reject("restricted: %s is not a hub admin", npub)
	}
	return by, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
