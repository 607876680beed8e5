package agentbridge

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// memberTTL is how long a hub-membership answer is cached.
const memberTTL = time.Minute

// gateEntry is one cached answer of a gate lookup (membership, a device's
// owner), fresh for memberTTL.
type gateEntry[T any] struct {
	v  T
	at time.Time
}

// cachedLookup answers key from cache when fresh, else asks fetch and keeps
// its answer unless fetch says not to (a failed lookup is asked again).
func cachedLookup[T any](ctx context.Context, r *runner, cache map[string]gateEntry[T], key string, fetch func(qctx context.Context) (T, bool)) T {
	r.mu.Lock()
	e, ok := cache[key]
	r.mu.Unlock()
	if ok && time.Since(e.at) < memberTTL {
		return e.v
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, keep := fetch(qctx)
	if keep {
		r.mu.Lock()
		cache[key] = gateEntry[T]{v, time.Now()}
		r.mu.Unlock()
	}
	return v
}

// mayAsk applies the `answer` gate to a mention's author. A paired device
// acts as its owner: when the gate does not admit the device's own key, it
// is asked again for the member whose device it is (never for an agent's
// owner: an agent's attestation has no device clause).
func (r *runner) mayAsk(ctx context.Context, h Hub, author string) bool {
	if r.admits(ctx, h, author) {
		return true
	}
	owner := r.deviceOwner(ctx, h, author)
	return owner != "" && r.admits(ctx, h, owner)
}

// deviceOwner is the owner of author when it is a paired device whose
// attestation stands, else "" (cached like the membership answers).
func (r *runner) deviceOwner(ctx context.Context, h Hub, author string) string {
	return cachedLookup(ctx, r, r.devices, author, func(qctx context.Context) (string, bool) {
		owner, err := DeviceOwner(qctx, h, author, time.Now())
		if err != nil {
			r.log.Debug("mention author is not a paired device", "author", author, "why", err)
		}
		return owner, qctx.Err() == nil // a lookup cut short is asked again
	})
}

// admits applies the gate to one key.
func (r *runner) admits(ctx context.Context, h Hub, author string) bool {
	a := r.cfg.answer
	if a.Owner && author == r.owner {
		return true
	}
	if a.Keys[author] {
		return true
	}
	return a.Members && r.isMember(ctx, h, author)
}

// isMember reports whether pk is a hub member (not an agent or device): the
// newest NIP-43 add/remove naming it is an add, or it signed one (the admin).
func (r *runner) isMember(ctx context.Context, h Hub, pk string) bool {
	return cachedLookup(ctx, r, r.members, pk, func(qctx context.Context) (bool, bool) {
		named, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.HubMemberAdd, kinds.HubMemberRemove}, Tags: nostr.TagMap{"p": {pk}}, Limit: 50})
		if err != nil {
			r.log.Warn("membership lookup failed", "author", pk, "err", err)
			return false, false
		}
		member := false
		var newest nostr.Timestamp
		for _, ev := range named {
			if ev.CreatedAt >= newest {
				newest, member = ev.CreatedAt, ev.Kind == kinds.HubMemberAdd
			}
		}
		if !member {
			signed, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.HubMemberAdd}, Authors: []string{pk}, Limit: 1})
			member = err == nil && len(signed) > 0
		}
		return member, true
	})
}

// gateReason says why the answer gate does not admit an author, naming the
// config key that changes it.
func (r *runner) gateReason() string {
	a := r.cfg.answer
	var who []string
	if a.Owner {
		who = append(who, "its owner")
	}
	if a.Members {
		who = append(who, "hub members and their paired devices (not agents)")
	}
	if len(a.Keys) > 0 {
		who = append(who, "the keys listed")
	}
	return fmt.Sprintf("not answered: this agent answers only %s (answer = %s in its bridge config); its owner can widen it: answer = \"members\" answers every hub member, or add your npub to a list", strings.Join(who, " and "), answerText(r.cfg.Answer))
}

// answerText is the answer key's value as the config spells it.
func answerText(v any) string {
	switch x := v.(type) {
	case nil:
		return `"owner"`
	case []any:
		q := make([]string, len(x))
		for i, e := range x {
			q[i] = fmt.Sprintf("%q", fmt.Sprint(e))
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return fmt.Sprintf("%q", fmt.Sprint(v))
}

// handle is how people type the agent's name: "@" and its display name.
func (r *runner) handle() string { return "@" + r.displayName() }

// namedInText reports whether text holds "@NAME" for the agent's display
// name or its config name (any case), not followed by a letter, digit, "_"
// or "-": how the bridge notices a mention typed without the p tag.
func (r *runner) namedInText(text string) bool {
	low := strings.ToLower(text)
	for _, name := range []string{r.displayName(), r.cfg.Name} {
		at := "@" + strings.ToLower(name)
		for i := strings.Index(low, at); i >= 0; {
			end := i + len(at)
			if next, _ := utf8.DecodeRuneInString(low[end:]); end == len(low) || !(unicode.IsLetter(next) || unicode.IsDigit(next) || next == '_' || next == '-') {
				return true
			}
			j := strings.Index(low[end:], at)
			if j < 0 {
				break
			}
			i = end + j
		}
	}
	return false
}
