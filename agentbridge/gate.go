package agentbridge

import (
	"context"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// memberTTL is how long a hub-membership answer is cached.
const memberTTL = time.Minute

type memberEntry struct {
	member bool
	at     time.Time
}

// mayAsk applies the `answer` gate to a mention's author.
func (r *runner) mayAsk(ctx context.Context, h Hub, author string) bool {
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
	r.mu.Lock()
	e, ok := r.members[pk]
	r.mu.Unlock()
	if ok && time.Since(e.at) < memberTTL {
		return e.member
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	named, err := h.Query(qctx, nostr.Filter{Kinds: []int{kinds.HubMemberAdd, kinds.HubMemberRemove}, Tags: nostr.TagMap{"p": {pk}}, Limit: 50})
	if err != nil {
		r.log.Warn("membership lookup failed", "author", pk, "err", err)
		return false
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
	r.mu.Lock()
	r.members[pk] = memberEntry{member, time.Now()}
	r.mu.Unlock()
	return member
}
