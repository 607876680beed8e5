package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// ---- queries: sequential REQ -> EOSE, one connection per server, taking turns ----

type queryResult struct {
	Name     string
	N        int // queries timed
	P50, P99 time.Duration
	Returned int // events returned in all
	Wrong    int // returned events that do not match their filter
	Closed   int // REQs answered with CLOSED
	Reason   string
}

type pendingReq struct {
	sub    string
	events [][]byte
	done   chan string // "" on EOSE, reason on CLOSED
	t      time.Time
}

// queryConn is a connection that sends one REQ at a time; cur is the one in flight.
type queryConn struct {
	c   *client
	cur *atomic.Pointer[pendingReq]
}

// runQueries times REQ -> EOSE for filters made by mk until n queries ran or the budget is spent
// (at least minN run), one at a time, query i on conns[i % len(conns)]. The first warm queries
// are not recorded.
func runQueries(ctx context.Context, conns []*queryConn, name string, n, minN, warm int, budget time.Duration, mk func(i int) nostr.Filter) (*queryResult, error) {
	res := &queryResult{Name: name}
	var lat latencies
	start := time.Now()
	for i := 0; i < n+warm; i++ {
		if i >= warm+minN && time.Since(start) > budget {
			break
		}
		f := mk(i)
		p := &pendingReq{sub: name + strconv.Itoa(i), done: make(chan string, 1)}
		qc := conns[i%len(conns)]
		c := qc.c
		qc.cur.Store(p)
		t0 := time.Now()
		if err := c.send(reqMsg(p.sub, f)); err != nil {
			return nil, err
		}
		var reason string
		select {
		case reason = <-p.done:
		case <-time.After(60 * time.Second):
			return nil, fmt.Errorf("%s: no EOSE within 60s", name)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		d := p.t.Sub(t0)
		if reason != "" {
			res.Closed++
			res.Reason = reason
			continue
		}
		c.send(closeMsg(p.sub))
		if i < warm {
			continue
		}
		lat = append(lat, d)
		res.Returned += len(p.events)
		for _, raw := range p.events {
			var ev nostr.Event
			if err := ev.UnmarshalJSON(raw); err != nil || !f.Matches(&ev) {
				res.Wrong++
			}
		}
	}
	res.N = len(lat)
	res.P50, res.P99 = lat.pct(50), lat.pct(99)
	return res, nil
}

func queryClient(ctx context.Context, url string, auth *authMode) (*queryConn, error) {
	cur := &atomic.Pointer[pendingReq]{}
	h := handlers{
		event: func(sub string, raw []byte, t time.Time) {
			if p := cur.Load(); p != nil && p.sub == sub {
				p.events = append(p.events, bytes.Clone(raw))
			}
		},
		eose: func(sub string, t time.Time) {
			if p := cur.Load(); p != nil && p.sub == sub {
				p.t = t
				p.done <- ""
			}
		},
		closed: func(sub, reason string, t time.Time) {
			if p := cur.Load(); p != nil && p.sub == sub {
				p.t = t
				p.done <- "CLOSED: " + reason
			}
		},
	}
	c, err := dial(ctx, url, auth, h)
	if err != nil {
		return nil, err
	}
	return &queryConn{c, cur}, nil
}

// readQuery is one kind of timed REQ of the read workloads.
type readQuery struct {
	name   string
	shape  string // the filter as the report shows it
	filter func(m *corpusMeta, r *rand.Rand, until func() *nostr.Timestamp) nostr.Filter
}

// readQueries are the read workloads' queries, in the order they run. The
// kind-less #e and #p lookups are what a generic NIP-01 client sends.
var readQueries = []readQuery{
	{"history", `{"#h":[ch],"kinds":[9],"limit":50,"until":rand}`, func(m *corpusMeta, r *rand.Rand, until func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"h": {m.Channels[r.IntN(len(m.Channels))]}}, Kinds: []int{9}, Limit: 50, Until: until()}
	}},
	{"#e", `{"#e":[random referenced id],"kinds":[9],"limit":50}`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"e": {m.Referenced[r.IntN(len(m.Referenced))]}}, Kinds: []int{9}, Limit: 50}
	}},
	{"#e any kind", `{"#e":[random referenced id],"limit":50}`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"e": {m.Referenced[r.IntN(len(m.Referenced))]}}, Limit: 50}
	}},
	{"#p", `{"#p":[random mentioned pubkey],"kinds":[9],"limit":50}`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"p": {m.Mentions[r.IntN(len(m.Mentions))]}}, Kinds: []int{9}, Limit: 50}
	}},
	// What a client asking for its mentions sends: messages and reactions.
	{"#p mentions", `{"#p":[random mentioned pubkey],"kinds":[9,7],"limit":50}`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"p": {m.Mentions[r.IntN(len(m.Mentions))]}}, Kinds: []int{9, 7}, Limit: 50}
	}},
	{"#p any kind", `{"#p":[random mentioned pubkey],"limit":50}`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"p": {m.Mentions[r.IntN(len(m.Mentions))]}}, Limit: 50}
	}},
	{"authors", `{"authors":[admin],"limit":20,"until":rand}`, func(m *corpusMeta, _ *rand.Rand, until func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Authors: []string{m.Admin}, Limit: 20, Until: until()}
	}},
	{"ids", `{"ids":[random stored id],"kinds":[9]}`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{IDs: []string{m.SampleIDs[r.IntN(len(m.SampleIDs))]}, Kinds: []int{9}}
	}},
	// NIP-50: hive ranks over its full-text index; the peer (eventstore's
	// sqlite) scans content LIKE '%w1 w2%', unranked.
	{"search", `{"search":"w1 w2","kinds":[9],"limit":20}, the two long-tail words of a stored message`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Search: m.SearchPairs[r.IntN(len(m.SearchPairs))], Kinds: []int{9}, Limit: 20}
	}},
	// The worst case of this corpus: two of its 120 common words, which
	// some 5% of all messages hold together.
	{"search common", `{"search":"w1 w2","kinds":[9],"limit":20}, two random common words`, func(_ *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Search: searchWords[r.IntN(len(searchWords))] + " " + searchWords[r.IntN(len(searchWords))], Kinds: []int{9}, Limit: 20}
	}},
}

type querySizes struct {
	history, lookups int
	budget           time.Duration
	only             map[string]bool // query names to run; nil: all
}

// runReads runs every read query kind in turn, with one connection per server of the target.
func runReads(ctx context.Context, tg *target, m *corpusMeta, qs querySizes) ([]*queryResult, error) {
	var conns []*queryConn
	defer func() {
		for _, qc := range conns {
			qc.c.close()
		}
	}()
	for _, u := range tg.urls() {
		qc, err := queryClient(ctx, u, &tg.auth)
		if err != nil {
			return nil, err
		}
		conns = append(conns, qc)
	}
	r := rand.New(rand.NewPCG(1, 2))
	randUntil := func() *nostr.Timestamp {
		// leave room for a full page before until
		span := m.MaxCreated - m.MinCreated
		u := nostr.Timestamp(m.MinCreated + span/20 + r.Int64N(span-span/20+1))
		return &u
	}
	var out []*queryResult
	type q struct {
		name string
		n    int
		mk   func(i int) nostr.Filter
	}
	var qsList []q
	for _, rq := range readQueries {
		if qs.only != nil && !qs.only[rq.name] {
			continue
		}
		n := qs.lookups
		if rq.name == "history" {
			n = qs.history
		}
		qsList = append(qsList, q{rq.name, n, func(int) nostr.Filter { return rq.filter(m, r, randUntil) }})
	}
	for _, x := range qsList {
		logf("%s: %s queries (up to %d, budget %s)", tg.name, x.name, x.n, qs.budget)
		cpu0 := tg.cpu()
		res, err := runQueries(ctx, conns, x.name, x.n, 10, 5, qs.budget, x.mk)
		if err != nil {
			return out, fmt.Errorf("%s: %w", x.name, err)
		}
		// The server's CPU per REQ (the 5 warm-up REQs included) is steadier
		// than latency while other processes share the cores.
		perReq := (tg.cpu() - cpu0) / time.Duration(max(1, res.N+res.Closed+5))
		logf("%s: %s: n=%d p50=%s p99=%s returned=%d wrong=%d closed=%d server CPU/REQ=%s %s", tg.name, x.name, res.N, fmtDur(res.P50), fmtDur(res.P99), res.Returned, res.Wrong, res.Closed, perReq, res.Reason)
		out = append(out, res)
	}
	return out, nil
}

// onlyQueries is the -queries set, nil for all.
func (c *config) onlyQueries() map[string]bool {
	if c.queries == "" {
		return nil
	}
	return set(c.queries)
}
