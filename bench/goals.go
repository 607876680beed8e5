package main

import (
	"fmt"
	"strings"
	"time"
)

// goal is one of hive's targets: what the table's target column says, and the rule that
// judges hive's value h (and the peer's p, for a target relative to the peer's). The zero goal
// is no target.
type goal struct {
	text     string
	met      func(h, p cell) bool
	relative bool // judged against the peer's value: not judged without it
}

// verdict is the table's last column for a row of hive value h and peer value p.
func (g goal) verdict(h, p cell) string {
	switch {
	case g.met == nil:
		return ""
	case !h.ok:
		return "not measured"
	case g.relative && !p.ok:
		return "not measured (no peer)"
	case g.met(h, p):
		return "met"
	default:
		return "**missed**"
	}
}

// below is "< limit": the cell's number (a duration's nanoseconds, or MB, ...) under limit.
func below(limit float64, text string) goal {
	return goal{text: "< " + text, met: func(h, _ cell) bool { return h.num < limit }}
}

// atMost is "≤ limit".
func atMost(limit float64, text string) goal {
	return goal{text: "≤ " + text, met: func(h, _ cell) bool { return h.num <= limit }}
}

// atLeast is "≥ limit" (more is better, as events/s).
func atLeast(limit float64, text string) goal {
	return goal{text: "≥ " + text, met: func(h, _ cell) bool { return h.num >= limit }}
}

func belowDur(d time.Duration) goal { return below(float64(d), fmtLimit(d)) }

func atMostDur(d time.Duration) goal { return atMost(float64(d), fmtLimit(d)) }

// zero is "none": missed deliveries, OKs missing, events not matching their filter.
var zero = goal{text: "0", met: func(h, _ cell) bool { return h.num == 0 }}

// peerTimes is "≥ k× peer" (more is better, as events/s) or "≤ k× peer" (less is better, as a
// time).
func peerTimes(k float64, more bool) goal {
	if more {
		return goal{fmt.Sprintf("≥ %g× peer", k), func(h, p cell) bool { return h.num >= k*p.num }, true}
	}
	return goal{fmt.Sprintf("≤ %g× peer", k), func(h, p cell) bool { return h.num <= k*p.num }, true}
}

// fmtLimit writes a round duration as a target says it: "2 ms", "120 µs".
func fmtLimit(d time.Duration) string {
	s := d.String()
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return s
	}
	return s[:i] + " " + s[i:]
}

// goalList is every target the table judges.
type goalList struct {
	ingestRate, ingestCPU, ingestP99     goal
	burstLast, burstMissing, burstGrowth goal
	// burstRate and burstCPU are issue 35's pipelined ingest (item 4), storedPerEvent its
	// bytes written per event (item 2), for ingest and burst alike
	burstRate, burstCPU, storedPerEvent goal
	// readP50 and readP99 are by readQuery name; a query without one has
	// no target there
	readP50, readP99    map[string]goal
	readWrong, readGC   goal
	fanoutP99, crossP99 goal
	sendP50, sendP99    goal
	missed              goal
	idlePerConn         goal
}

// goals are hive's targets, each written once: issue 19's (item 2, and item 3's fan-out across
// instances), and, for the reads it does not name (`#e` with kinds, search), the targets
// they had before it, kept as guards; issue 35's for reads (item 4: p50 ≤ 0.5 ms for every
// query but search, `ids` p99 ≤ 0.5 ms, `#p` also with kinds [9,7]).
func goals() goalList {
	ms2 := belowDur(2 * time.Millisecond)
	half := atMostDur(500 * time.Microsecond)
	p50 := map[string]goal{}
	for _, name := range []string{"history", "#e", "#e any kind", "#p", "#p mentions", "#p any kind", "authors", "ids"} {
		p50[name] = half
	}
	return goalList{
		ingestRate:   peerTimes(2.5, true),
		ingestCPU:    atMostDur(120 * time.Microsecond),
		ingestP99:    belowDur(10 * time.Millisecond),
		burstLast:    peerTimes(0.3, false),
		burstMissing: zero,
		burstGrowth:  below(64, "64 MB"),
		burstRate:    atLeast(12000, "12,000"),
		burstCPU:     atMostDur(120 * time.Microsecond),
		// the cell is in KB (of 1,024 bytes)
		storedPerEvent: atMost(6, "6 KB"),
		readP50:        p50,
		readP99: map[string]goal{
			"history": ms2, "#e any kind": ms2, "#p": ms2, "#p mentions": ms2, "#p any kind": ms2, "authors": ms2,
			"#e": ms2, "ids": half, "search": belowDur(20 * time.Millisecond),
		},
		readWrong:   zero,
		readGC:      below(0.10, "10% of the server's CPU"),
		fanoutP99:   belowDur(15 * time.Millisecond),
		crossP99:    belowDur(30 * time.Millisecond),
		sendP50:     belowDur(2 * time.Millisecond),
		sendP99:     belowDur(5 * time.Millisecond),
		missed:      zero,
		idlePerConn: atMost(8, "8 KB"),
	}
}
