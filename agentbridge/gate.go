package agentbridge

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

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

// answerGate applies the `answer` config to a mention's author, asking
// the hub who is a member and whose paired device a key is, and caching
// those answers for memberTTL. Its methods run on the mention loop's
// goroutine; mu guards the caches (the hub lookups run outside it).
type answerGate struct {
	rule   Answer
	config any // the answer key as the config wrote it, for the reason
	owner  string
	log    *slog.Logger

	mu      sync.Mutex
	members map[string]gateEntry[bool]   // hub members: yes or no
	devices map[string]gateEntry[string] // paired devices seen as mention authors: their owners
}

func newAnswerGate(rule Answer, config any, owner string, log *slog.Logger) *answerGate {
	return &answerGate{rule: rule, config: config, owner: owner, log: log, members: map[string]gateEntry[bool]{}, devices: map[string]gateEntry[string]{}}
}

// cachedLookup answers key from cache when fresh, else asks fetch and keeps
// its answer unless fetch says not to (a failed lookup is asked again).
func cachedLookup[T any](ctx context.Context, g *answerGate, cache map[string]gateEntry[T], key string, fetch func(qctx context.Context) (T, bool)) T {
	g.mu.Lock()
	e, ok := cache[key]
	g.mu.Unlock()
	if ok && time.Since(e.at) < memberTTL {
		return e.v
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, keep := fetch(qctx)
	if keep {
		g.mu.Lock()
		cache[key] = gateEntry[T]{v, time.Now()}
		g.mu.Unlock()
	}
	return v
}

// mayAsk applies the gate to a mention's author. A paired device acts as
// its owner: when the gate does not admit the device's own key, it is asked
// again for the member whose device it is (never for an agent's owner: an
// agent's attestation has no device clause).
func (g *answerGate) mayAsk(ctx context.Context, h HubConn, author string) bool {
	if g.admits(ctx, h, author) {
		return true
	}
	owner := g.deviceOwner(ctx, h, author)
	return owner != "" && g.admits(ctx, h, owner)
}

// deviceOwner is the owner of author when it is a paired device whose
// attestation stands, else "" (cached like the membership answers).
func (g *answerGate) deviceOwner(ctx context.Context, h HubConn, author string) string {
	return cachedLookup(ctx, g, g.devices, author, func(qctx context.Context) (string, bool) {
		owner, err := DeviceOwner(qctx, h, author, time.Now())
		if err != nil {
			g.log.Debug("mention author is not a paired device", "author", author, "why", err)
		}
		return owner, qctx.Err() == nil // a lookup cut short is asked again
	})
}

// admits applies the gate to one key.
func (g *answerGate) admits(ctx context.Context, h HubConn, author string) bool {
	a := g.rule
	return (a.Owner && author == g.owner) || a.Keys[author] || (a.Members && g.isMember(ctx, h, author))
}

// isMember reports whether pk is a hub member (not an agent or device): the
// newest NIP-43 add/remove naming it is an add, or it signed one (the admin).
func (g *answerGate) isMember(ctx context.Context, h HubConn, pk string) bool {
	return cachedLookup(ctx, g, g.members, pk, func(qctx context.Context) (bool, bool) {
		named, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.HubMemberAdd, kinds.HubMemberRemove}, Tags: nostr.TagMap{"p": {pk}}, Limit: 50})
		if err != nil {
			g.log.Warn("membership lookup failed", "author", pk, "err", err)
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

// reason says why the gate does not admit an author, naming the config
// key that changes it.
func (g *answerGate) reason() string {
	a := g.rule
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
	return fmt.Sprintf("not answered: this agent answers only %s (answer = %s in its bridge config); its owner can widen it: answer = \"members\" answers every hub member, or add your npub to a list", strings.Join(who, " and "), answerText(g.config))
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
