package client

import (
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// profileCache holds the profiles LoadNames fetched, by key, for
// Options.ProfileCache; a key asked for without a profile is kept too (nil).
type profileCache struct {
	mu sync.Mutex
	by map[string]cachedProfile
}

type cachedProfile struct {
	ev *nostr.Event // nil: the key has no profile
	at time.Time
}

// get returns the cached profile of pk when it is younger than ttl.
func (p *profileCache) get(pk string, ttl time.Duration, now time.Time) (cachedProfile, bool) {
	if ttl <= 0 {
		return cachedProfile{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.by[pk]
	return e, ok && now.Sub(e.at) < ttl
}

// put records what the hub answered for the keys asked.
func (p *profileCache) put(asked []string, profs []nostr.Event, ttl time.Duration, now time.Time) {
	if ttl <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.by == nil {
		p.by = map[string]cachedProfile{}
	}
	for pk, e := range p.by { // keep it bounded by what is fresh
		if now.Sub(e.at) >= ttl {
			delete(p.by, pk)
		}
	}
	for _, pk := range asked {
		p.by[pk] = cachedProfile{at: now}
	}
	for i := range profs {
		ev := profs[i]
		if old := p.by[ev.PubKey].ev; old == nil || ev.CreatedAt > old.CreatedAt {
			p.by[ev.PubKey] = cachedProfile{ev: &ev, at: now}
		}
	}
}
