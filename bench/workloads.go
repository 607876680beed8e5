package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// latencies collects durations and reports nearest-rank percentiles.
type latencies []time.Duration

func (l latencies) pct(p float64) time.Duration {
	if len(l) == 0 {
		return -1
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// ---- ingest: publishers each send one EVENT and wait for its OK ----

type ingestResult struct {
	N        int
	Wall     time.Duration
	Rate     float64
	P50, P99 time.Duration
	Rejected int
	Reason   string
}

type okMsg struct {
	id     string
	ok     bool
	reason string
	t      time.Time
}

// runIngest stops early (and reports the rate over what completed) once maxDur has passed.
func runIngest(ctx context.Context, s *server, evs []*nostr.Event, pubs int, maxDur time.Duration) (*ingestResult, error) {
	msgs := make([][]byte, len(evs))
	for i, ev := range evs {
		msgs[i] = eventMsg(ev)
	}
	oks := make([]chan okMsg, pubs)
	cs, err := dialMany(ctx, s.url(), &s.auth, pubs, pubs, func(i int) handlers {
		oks[i] = make(chan okMsg, 64)
		return handlers{ok: func(id string, ok bool, reason string, t time.Time) {
			oks[i] <- okMsg{id, ok, reason, t}
		}}
	})
	if err != nil {
		return nil, err
	}
	defer closeAll(cs)

	var mu sync.Mutex
	res := &ingestResult{N: len(evs)}
	var all latencies
	var wg sync.WaitGroup
	var firstErr error
	start := time.Now()
	for p := range pubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make(latencies, 0, len(evs)/pubs+1)
			rejected, reason := 0, ""
			for i := p; i < len(evs); i += pubs {
				if time.Since(start) > maxDur {
					break
				}
				t0 := time.Now()
				if err := cs[p].send(msgs[i]); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				select {
				case m := <-oks[p]:
					if m.id != evs[i].ID {
						mu.Lock()
						firstErr = fmt.Errorf("OK for unexpected id %s", m.id)
						mu.Unlock()
						return
					}
					lat = append(lat, m.t.Sub(t0))
					if !m.ok {
						rejected++
						reason = m.reason
					}
				case <-time.After(30 * time.Second):
					mu.Lock()
					firstErr = errors.New("no OK within 30s")
					mu.Unlock()
					return
				}
			}
			mu.Lock()
			all = append(all, lat...)
			res.Rejected += rejected
			if reason != "" {
				res.Reason = reason
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Wall = time.Since(start)
	if firstErr != nil {
		return nil, firstErr
	}
	res.N = len(all)
	res.Rate = float64(len(all)) / res.Wall.Seconds()
	res.P50, res.P99 = all.pct(50), all.pct(99)
	return res, nil
}

// ---- burst: connections send all their EVENTs without waiting, OKs read concurrently ----

type burstResult struct {
	N          int
	TimeToLast time.Duration
	Missing    int
	Rejected   int
	Reason     string
	RSSBefore  int64 // KiB
	HWMAfter   int64 // KiB
	GrowthKB   int64
}

// runBurst waits for the OKs until all came, none came for 30s, or maxWait passed since the
// last EVENT was written.
func runBurst(ctx context.Context, s *server, evs []*nostr.Event, conns int, maxWait time.Duration) (*burstResult, error) {
	msgs := make([][]byte, len(evs))
	for i, ev := range evs {
		msgs[i] = eventMsg(ev)
	}
	want := make(map[string]bool, len(evs))
	for _, ev := range evs {
		want[ev.ID] = true
	}
	seen := make([]map[string]bool, conns)
	var got, rejected atomic.Int64
	var lastOK atomic.Int64
	var reason atomic.Value
	allIn := make(chan struct{})
	var once sync.Once
	cs, err := dialMany(ctx, s.url(), &s.auth, conns, conns, func(i int) handlers {
		seen[i] = make(map[string]bool, len(evs)/conns+1)
		return handlers{ok: func(id string, ok bool, r string, t time.Time) {
			if !want[id] || seen[i][id] {
				return
			}
			seen[i][id] = true
			if !ok {
				rejected.Add(1)
				reason.Store(r)
			}
			lastOK.Store(t.UnixNano())
			if got.Add(1) == int64(len(evs)) {
				once.Do(func() { close(allIn) })
			}
		}}
	})
	if err != nil {
		return nil, err
	}
	defer closeAll(cs)

	pid := s.pid()
	res := &burstResult{N: len(evs)}
	res.RSSBefore, _ = procMem(pid)
	if err := resetHWM(pid); err != nil {
		logf("burst: cannot reset VmHWM (%v); growth includes earlier peaks", err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	var sendErr atomic.Value
	for c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < len(msgs); i += conns {
				if err := cs[c].send(msgs[i]); err != nil {
					sendErr.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	logf("%s: burst: all %d EVENTs written in %s", s.name, len(evs), time.Since(start).Round(time.Millisecond))
	// wait for every OK, giving up after 30s without progress
	last := got.Load()
	stall := time.Now()
	sentAll := time.Now()
wait:
	for {
		select {
		case <-allIn:
			break wait
		case <-time.After(500 * time.Millisecond):
			if g := got.Load(); g != last {
				last, stall = g, time.Now()
			} else if time.Since(stall) > 30*time.Second {
				logf("%s: burst: no OK for 30s, giving up", s.name)
				break wait
			}
			if time.Since(sentAll) > maxWait {
				logf("%s: burst: still OKs missing %s after the last EVENT, giving up", s.name, maxWait)
				break wait
			}
		}
	}
	_, res.HWMAfter = procMem(pid)
	res.GrowthKB = res.HWMAfter - res.RSSBefore
	if l := lastOK.Load(); l > 0 {
		res.TimeToLast = time.Unix(0, l).Sub(start)
	}
	res.Missing = len(evs) - int(got.Load())
	res.Rejected = int(rejected.Load())
	if r, ok := reason.Load().(string); ok {
		res.Reason = r
	}
	if e, ok := sendErr.Load().(error); ok && e != nil {
		logf("%s: burst: send error: %v", s.name, e)
	}
	return res, nil
}

// ---- queries: sequential REQ -> EOSE on one connection ----

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

// runQueries times REQ -> EOSE for filters made by mk until n queries ran or the budget is spent
// (at least minN run). The first warm queries are not recorded.
func runQueries(ctx context.Context, c *client, cur *atomic.Pointer[pendingReq], name string, n, minN, warm int, budget time.Duration, mk func(i int) nostr.Filter) (*queryResult, error) {
	res := &queryResult{Name: name}
	var lat latencies
	start := time.Now()
	for i := 0; i < n+warm; i++ {
		if i >= warm+minN && time.Since(start) > budget {
			break
		}
		f := mk(i)
		p := &pendingReq{sub: name + strconv.Itoa(i), done: make(chan string, 1)}
		cur.Store(p)
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

func queryClient(ctx context.Context, s *server) (*client, *atomic.Pointer[pendingReq], error) {
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
	c, err := dial(ctx, s.url(), &s.auth, h)
	return c, cur, err
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
	{"#p any kind", `{"#p":[random mentioned pubkey],"limit":50}`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Tags: nostr.TagMap{"p": {m.Mentions[r.IntN(len(m.Mentions))]}}, Limit: 50}
	}},
	{"authors", `{"authors":[admin],"limit":20,"until":rand}`, func(m *corpusMeta, _ *rand.Rand, until func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{Authors: []string{m.Admin}, Limit: 20, Until: until()}
	}},
	{"ids", `{"ids":[random stored id],"kinds":[9]}`, func(m *corpusMeta, r *rand.Rand, _ func() *nostr.Timestamp) nostr.Filter {
		return nostr.Filter{IDs: []string{m.SampleIDs[r.IntN(len(m.SampleIDs))]}, Kinds: []int{9}}
	}},
}

type querySizes struct {
	history, lookups int
	budget           time.Duration
}

func runReads(ctx context.Context, s *server, m *corpusMeta, qs querySizes) ([]*queryResult, error) {
	c, cur, err := queryClient(ctx, s)
	if err != nil {
		return nil, err
	}
	defer c.close()
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
		n := qs.lookups
		if rq.name == "history" {
			n = qs.history
		}
		qsList = append(qsList, q{rq.name, n, func(int) nostr.Filter { return rq.filter(m, r, randUntil) }})
	}
	for _, x := range qsList {
		logf("%s: %s queries (up to %d, budget %s)", s.name, x.name, x.n, qs.budget)
		res, err := runQueries(ctx, c, cur, x.name, x.n, 10, 5, qs.budget, x.mk)
		if err != nil {
			return out, fmt.Errorf("%s: %w", x.name, err)
		}
		logf("%s: %s: n=%d p50=%s p99=%s returned=%d wrong=%d closed=%d %s", s.name, x.name, res.N, fmtDur(res.P50), fmtDur(res.P99), res.Returned, res.Wrong, res.Closed, res.Reason)
		out = append(out, res)
	}
	return out, nil
}

// ---- fan-out: one publisher, many subscribers on one channel ----

type fanoutResult struct {
	Subs, Events int
	P50, P99     time.Duration
	Missed       int
	Rejected     int
}

func runFanout(ctx context.Context, s *server, ch string, evs []*nostr.Event, subs int, spacing time.Duration) (*fanoutResult, error) {
	index := make(map[string]int, len(evs))
	for i, ev := range evs {
		index[ev.ID] = i
	}
	type rec struct {
		i int32
		t int64
	}
	recs := make([][]rec, subs)
	var delivered atomic.Int64
	var eose sync.WaitGroup
	eose.Add(subs)
	f := nostr.Filter{Tags: nostr.TagMap{"h": {ch}}, Kinds: []int{9}, LimitZero: true}
	var closedN atomic.Int64
	var closedReason atomic.Value
	cs, err := dialMany(ctx, s.url(), &s.auth, subs, 32, func(k int) handlers {
		var once sync.Once
		return handlers{
			event: func(sub string, raw []byte, t time.Time) {
				if i, ok := index[eventIDKey(raw)]; ok {
					recs[k] = append(recs[k], rec{int32(i), t.UnixNano()})
					delivered.Add(1)
				}
			},
			eose: func(string, time.Time) { once.Do(eose.Done) },
			closed: func(_, reason string, _ time.Time) {
				closedN.Add(1)
				closedReason.Store(reason)
				once.Do(eose.Done)
			},
		}
	})
	if err != nil {
		return nil, err
	}
	defer func() { closeAll(cs) }()
	for _, c := range cs {
		if err := c.send(reqMsg("fan", f)); err != nil {
			return nil, err
		}
	}
	if !waitGroupTimeout(&eose, 60*time.Second) {
		return nil, errors.New("subscribers did not all get EOSE within 60s")
	}
	if n := closedN.Load(); n > 0 {
		return nil, fmt.Errorf("%d subscriptions CLOSED: %v", n, closedReason.Load())
	}
	logf("%s: fan-out: %d subscribers live", s.name, subs)

	var rejected atomic.Int64
	pub, err := dial(ctx, s.url(), &s.auth, handlers{ok: func(id string, ok bool, reason string, t time.Time) {
		if !ok {
			rejected.Add(1)
			logf("%s: fan-out: publish refused: %s", s.name, reason)
		}
	}})
	if err != nil {
		return nil, err
	}
	defer pub.close()
	sent := make([]int64, len(evs))
	tick := time.NewTicker(spacing)
	for i, ev := range evs {
		<-tick.C
		msg := eventMsg(ev)
		sent[i] = time.Now().UnixNano()
		if err := pub.send(msg); err != nil {
			tick.Stop()
			return nil, err
		}
	}
	tick.Stop()
	want := int64(len(evs) * subs)
	deadline := time.Now().Add(10 * time.Second)
	for delivered.Load() < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	res := &fanoutResult{Subs: subs, Events: len(evs), Rejected: int(rejected.Load())}
	// stop the readers before looking at what they recorded
	closeAll(cs)
	cs = nil
	var lat latencies
	unique := 0
	for _, rs := range recs {
		seen := make(map[int32]bool, len(rs))
		for _, r := range rs {
			if seen[r.i] {
				continue
			}
			seen[r.i] = true
			unique++
			lat = append(lat, time.Duration(r.t-sent[r.i]))
		}
	}
	res.Missed = int(want) - unique
	res.P50, res.P99 = lat.pct(50), lat.pct(99)
	return res, nil
}

func waitGroupTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// ---- idle: many connections each holding one open REQ ----

type idleResult struct {
	Conns     int
	RSSBefore int64 // KiB
	RSSAfter  int64 // KiB
	KBPerConn float64
}

func runIdle(ctx context.Context, s *server, ch string, conns int) (*idleResult, error) {
	pid := s.pid()
	res := &idleResult{Conns: conns}
	time.Sleep(time.Second)
	res.RSSBefore, _ = procMem(pid)
	var eose sync.WaitGroup
	eose.Add(conns)
	var closedN atomic.Int64
	var closedReason atomic.Value
	f := nostr.Filter{Tags: nostr.TagMap{"h": {ch}}, Kinds: []int{9}, LimitZero: true}
	cs, err := dialMany(ctx, s.url(), &s.auth, conns, 32, func(int) handlers {
		var once sync.Once
		return handlers{
			eose: func(string, time.Time) { once.Do(eose.Done) },
			closed: func(_, reason string, _ time.Time) {
				closedN.Add(1)
				closedReason.Store(reason)
				once.Do(eose.Done)
			},
		}
	})
	if err != nil {
		return nil, err
	}
	defer closeAll(cs)
	for _, c := range cs {
		if err := c.send(reqMsg("idle", f)); err != nil {
			return nil, err
		}
	}
	if !waitGroupTimeout(&eose, 120*time.Second) {
		return nil, errors.New("not every idle REQ got EOSE within 120s")
	}
	if n := closedN.Load(); n > 0 {
		return nil, fmt.Errorf("%d idle subscriptions CLOSED: %v", n, closedReason.Load())
	}
	time.Sleep(2 * time.Second)
	res.RSSAfter, _ = procMem(pid)
	res.KBPerConn = float64(res.RSSAfter-res.RSSBefore) / float64(conns)
	return res, nil
}

// createChannels publishes the kind 9007 channel-create events (signed now) and waits for OKs.
func createChannels(ctx context.Context, s *server, chans []string) error {
	okc := make(chan okMsg, len(chans))
	c, err := dial(ctx, s.url(), &s.auth, handlers{ok: func(id string, ok bool, reason string, t time.Time) {
		okc <- okMsg{id, ok, reason, t}
	}})
	if err != nil {
		return err
	}
	defer c.close()
	for _, ch := range chans {
		ev := nostr.Event{
			Kind:      9007,
			CreatedAt: nostr.Now(),
			Tags:      nostr.Tags{{"h", ch}, {"name", "bench"}, {"visibility", "open"}, {"type", "stream"}},
		}
		if err := ev.Sign(adminSK); err != nil {
			return err
		}
		if err := c.send(eventMsg(&ev)); err != nil {
			return err
		}
		select {
		case m := <-okc:
			if !m.ok {
				return fmt.Errorf("channel create %s refused: %s", ch, m.reason)
			}
		case <-time.After(10 * time.Second):
			return fmt.Errorf("no OK for channel create %s", ch)
		}
	}
	return nil
}
