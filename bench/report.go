package main

import (
	"fmt"
	"strings"
	"time"
)

// row is one line of the table: a metric of one workload, for hive and the peer.
type row struct {
	workload, metric string
	hive, peer       cell
	goal             goal
	ratio            bool // show hive/peer
}

// table collects the rows of one run's results.
type table struct {
	h, p *serverResult
	rows []row
}

// add appends a row whose cells get reads from each server's result.
func (t *table) add(workload, metric string, get func(*serverResult) cell, g goal, ratio bool) {
	t.rows = append(t.rows, row{workload, metric, get(t.h), get(t.p), g, ratio})
}

// of reads a cell from a workload's result, "-" when the workload did not run.
func of[T any](get func(*serverResult) *T, f func(*T) cell) func(*serverResult) cell {
	return func(r *serverResult) cell {
		if x := get(r); x != nil {
			return f(x)
		}
		return none()
	}
}

func renderTable(c *config, res *results) string {
	t := &table{h: res.hive, p: res.peer}
	if t.h == nil {
		t.h = &serverResult{}
	}
	if t.p == nil {
		t.p = &serverResult{}
	}
	h, p := t.h, t.p
	gl := goals()
	stored := fmtCount(res.stored)

	// ingest
	ing := func(f func(*ingestResult) cell) func(*serverResult) cell {
		return of(func(r *serverResult) *ingestResult { return r.Ingest }, f)
	}
	t.add(fmt.Sprintf("ingest: %d publishers, %s EVENTs (at most %s), each waits for its OK", c.publishers, fmtCount(c.ingest), c.ingestMax), "events/s",
		ing(func(x *ingestResult) cell { return numCell(x.Rate, "%.0f") }), gl.ingestRate, true)
	t.add("", "server CPU per acknowledged event", cpuPerEvent, gl.ingestCPU, true)
	t.add("", "OK p50", ing(func(x *ingestResult) cell { return durCell(x.P50) }), goal{}, true)
	t.add("", "OK p99", ing(func(x *ingestResult) cell { return durCell(x.P99) }), gl.ingestP99, true)
	ingestAcked := func(r *serverResult) int {
		if r.Ingest == nil {
			return 0
		}
		return r.Ingest.N - r.Ingest.Rejected
	}
	t.add("", "written to storage per acknowledged event (write_bytes)", storedPerEvent("ingest", ingestAcked), gl.storedPerEvent, true)
	t.add("", "passed to write per acknowledged event (wchar)", writtenPerEvent("ingest", ingestAcked), goal{}, true)
	t.add("", "EVENTs acknowledged", ing(func(x *ingestResult) cell { return intCell(x.N) }), goal{}, false)
	t.add("", "refused", ing(func(x *ingestResult) cell { return intCell(x.Rejected) }), goal{}, false)

	// burst
	bu := func(f func(*burstResult) cell) func(*serverResult) cell {
		return of(func(r *serverResult) *burstResult { return r.Burst }, f)
	}
	t.add(fmt.Sprintf("burst: %d connections × %s pipelined EVENTs", c.burstConns, fmtCount(c.burstPerConn)), "time to last OK",
		bu(func(x *burstResult) cell { return durCell(x.TimeToLast) }), gl.burstLast, true)
	burstAcked := func(r *serverResult) int {
		if r.Burst == nil {
			return 0
		}
		return r.Burst.N - r.Burst.Missing - r.Burst.Rejected
	}
	t.add("", "events/s (acknowledged / time to last OK)", bu(func(x *burstResult) cell {
		if x.TimeToLast <= 0 {
			return none()
		}
		return numCell(float64(x.N-x.Missing-x.Rejected)/x.TimeToLast.Seconds(), "%.0f")
	}), gl.burstRate, true)
	t.add("", "server CPU per acknowledged event", serverPerEvent("burst", burstAcked), gl.burstCPU, true)
	t.add("", "written to storage per acknowledged event (write_bytes)", storedPerEvent("burst", burstAcked), gl.storedPerEvent, true)
	t.add("", "passed to write per acknowledged event (wchar)", writtenPerEvent("burst", burstAcked), goal{}, true)
	t.add("", fmt.Sprintf("OKs missing (waited ≤ %s)", c.burstWait), bu(func(x *burstResult) cell { return intCell(x.Missing) }), gl.burstMissing, false)
	t.add("", "refused (OK false)", bu(func(x *burstResult) cell { return intCell(x.Rejected) }), goal{}, false)
	t.add("", "peak RSS growth", bu(func(x *burstResult) cell { return numCell(float64(x.GrowthKB)/1024, "%.1f MB") }), gl.burstGrowth, true)

	// reads
	for _, rq := range readQueries {
		label := fmt.Sprintf("lookup at %s: `%s`", stored, rq.shape)
		switch rq.name {
		case "history":
			label = fmt.Sprintf("channel history at %s stored: `%s` over %d channels", stored, rq.shape, numChannels)
		case "search", "search common":
			label = fmt.Sprintf("search at %s stored: `%s`", stored, rq.shape)
		}
		q := func(f func(*queryResult) cell) func(*serverResult) cell {
			return of(func(r *serverResult) *queryResult { return r.Queries[rq.name] }, f)
		}
		t.add(label, "REQ→EOSE p50", q(func(x *queryResult) cell { return durCell(x.P50) }), gl.readP50[rq.name], true)
		t.add("", "REQ→EOSE p99", q(func(x *queryResult) cell { return durCell(x.P99) }), gl.readP99[rq.name], true)
		t.add("", "events not matching filter", q(func(x *queryResult) cell {
			if x.N == 0 {
				return none()
			}
			return intCell(x.Wrong)
		}), gl.readWrong, false)
		t.add("", "REQs timed / events returned", q(func(x *queryResult) cell {
			return cell{fmt.Sprintf("%d / %s", x.N, fmtCount(x.Returned)), 0, true}
		}), goal{}, false)
		closed := q(func(x *queryResult) cell { return intCell(x.Closed) })
		if closed(h).num > 0 || closed(p).num > 0 {
			t.add("", "REQs CLOSED", closed, goal{}, false)
		}
	}
	t.rows = append(t.rows, row{"read workloads (all the queries above)", "garbage collection, share of the server's CPU",
		gcCell(h), cell{text: "n/a"}, gl.readGC, false})

	// fan-out, send → tail
	fanRows := func(wl, what string, get func(*serverResult) *fanoutResult, p50, p99 goal) {
		fo := func(f func(*fanoutResult) cell) func(*serverResult) cell { return of(get, f) }
		t.add(wl, what+" p50", fo(func(x *fanoutResult) cell { return durCell(x.P50) }), p50, true)
		t.add("", what+" p99", fo(func(x *fanoutResult) cell { return durCell(x.P99) }), p99, true)
		t.add("", "missed deliveries", fo(func(x *fanoutResult) cell { return intCell(x.Missed) }), gl.missed, false)
	}
	spread := ""
	if c.hiveInstances > 1 {
		spread = fmt.Sprintf(" (hive: publisher on instance 1, subscribers spread over all %d)", c.hiveInstances)
	}
	fanRows(fmt.Sprintf("fan-out: 1 publisher, %s subscribers on one channel, %d events %s apart%s", fmtCount(c.fanoutSubs), c.fanoutEvents, c.fanoutSpacing, spread),
		"delivery", func(r *serverResult) *fanoutResult { return r.Fanout }, goal{}, gl.fanoutP99)
	if h.FanoutCross != nil {
		others := "instance 2"
		if c.hiveInstances > 2 {
			others = fmt.Sprintf("instances 2 to %d", c.hiveInstances)
		}
		fanRows(fmt.Sprintf("fan-out across instances: 1 publisher on instance 1, %s subscribers on %s, %d events %s apart", fmtCount(c.fanoutSubs), others, c.fanoutEvents, c.fanoutSpacing),
			"delivery", func(r *serverResult) *fanoutResult { return r.FanoutCross }, goal{}, gl.crossP99)
	}
	fanRows(fmt.Sprintf("send → tail: one connection publishes %d kind 9 messages to a channel, %s apart; another connection's live subscription to it receives them", c.sendtailEvents, c.sendtailSpace),
		"publish sent → EVENT received", func(r *serverResult) *fanoutResult { return r.SendTail }, gl.sendP50, gl.sendP99)

	// idle
	id := func(f func(*idleResult) cell) func(*serverResult) cell {
		return of(func(r *serverResult) *idleResult { return r.Idle }, f)
	}
	t.add(fmt.Sprintf("idle: %s connections, one open REQ each", fmtCount(c.idleConns)), "RSS per connection",
		id(func(x *idleResult) cell { return numCell(x.KBPerConn, "%.1f KB") }), gl.idlePerConn, true)
	t.add("", "RSS before → after", id(func(x *idleResult) cell {
		return cell{fmt.Sprintf("%d → %d MB", x.RSSBefore/1024, x.RSSAfter/1024), 0, true}
	}), goal{}, false)

	// info
	t.add("info (untimed)", fmt.Sprintf("preload of %s stored events", stored), importCell, goal{}, false)
	t.add("", "CPU of other processes during the workloads (cores)", othersCell, goal{}, false)
	t.add("", "RSS / peak RSS at the end", memCell, goal{}, false)
	t.add("", "load average (1, 5, 15 min) before → after the workloads", loadCell, goal{}, false)
	for _, w := range workloadOrder {
		if h.CPU[w].Wall == 0 && p.CPU[w].Wall == 0 {
			continue
		}
		t.add("", fmt.Sprintf("CPU during %s: server (+ PostgreSQL) / bench client / other processes, in cores", w),
			func(r *serverResult) cell { return cpuCell(r, w) }, goal{}, false)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "| workload | metric | hive | peer (%s) | hive/peer | target for hive | hive |\n", c.peer)
	b.WriteString("|---|---|--:|--:|--:|---|---|\n")
	for _, r := range t.rows {
		ratio := ""
		if r.ratio && r.hive.ok && r.peer.ok && r.peer.num != 0 {
			ratio = fmtRatio(r.hive.num / r.peer.num)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.workload, r.metric, r.hive.text, r.peer.text, ratio, r.goal.text, r.goal.verdict(r.hive, r.peer))
	}
	for _, x := range []struct {
		name string
		r    *serverResult
	}{{"hive", res.hive}, {"peer", res.peer}} {
		if x.r == nil {
			fmt.Fprintf(&b, "\n%s was not run.\n", x.name)
			continue
		}
		for _, e := range x.r.Errors {
			first, _, _ := strings.Cut(e, "\n")
			fmt.Fprintf(&b, "\n%s error: %s\n", x.name, first)
		}
	}
	for _, x := range []struct {
		name string
		r    *serverResult
	}{{"hive", res.hive}, {"peer", res.peer}} {
		if x.r == nil {
			continue
		}
		if x.r.Ingest != nil && x.r.Ingest.Reason != "" {
			fmt.Fprintf(&b, "\n%s ingest refusal: %s\n", x.name, x.r.Ingest.Reason)
		}
		if x.r.Burst != nil && x.r.Burst.Reason != "" {
			fmt.Fprintf(&b, "\n%s burst refusal: %s\n", x.name, x.r.Burst.Reason)
		}
		for _, rq := range readQueries {
			if qr := x.r.Queries[rq.name]; qr != nil && qr.Reason != "" {
				fmt.Fprintf(&b, "\n%s %s CLOSED: %s\n", x.name, rq.name, qr.Reason)
			}
		}
	}
	return b.String()
}

// serverPerEvent is the server processes' CPU time during workload w over the events it
// acknowledged (acked).
func serverPerEvent(w string, acked func(*serverResult) int) func(*serverResult) cell {
	return func(r *serverResult) cell {
		sp, n := r.CPU[w], acked(r)
		if sp.Wall == 0 || n <= 0 {
			return none()
		}
		per := sp.Server / time.Duration(n)
		return cell{fmtMicros(per), float64(per), true}
	}
}

// storedPerEvent is what the server processes caused to be written to storage during workload
// w (/proc/PID/io write_bytes: the WAL, the database, the checkpoints) over the events it
// acknowledged.
func storedPerEvent(w string, acked func(*serverResult) int) func(*serverResult) cell {
	return bytesPerEvent(w, acked, func(sp cpuSplit) int64 { return sp.Stored })
}

// writtenPerEvent is what the server processes passed to write-like calls during workload w
// (/proc/PID/io wchar: files and sockets; in the write workloads the sockets carry only the
// OKs) over the events it acknowledged. Steadier than write_bytes, which counts a page of the
// page cache each time it turns dirty and so moves with the kernel's writeback.
func writtenPerEvent(w string, acked func(*serverResult) int) func(*serverResult) cell {
	return bytesPerEvent(w, acked, func(sp cpuSplit) int64 { return sp.Written })
}

func bytesPerEvent(w string, acked func(*serverResult) int, bytes func(cpuSplit) int64) func(*serverResult) cell {
	return func(r *serverResult) cell {
		sp, n := r.CPU[w], acked(r)
		if sp.Wall == 0 || n <= 0 {
			return none()
		}
		return numCell(float64(bytes(sp))/float64(n)/1024, "%.1f KB")
	}
}

// cpuPerEvent is the server processes' CPU time during the ingest workload over the events
// they accepted (and the PostgreSQL server's, when there is one, beside it).
func cpuPerEvent(r *serverResult) cell {
	sp, ok := r.CPU["ingest"]
	if r.Ingest == nil || !ok || sp.Wall == 0 {
		return none()
	}
	acked := r.Ingest.N - r.Ingest.Rejected
	if acked <= 0 {
		return none()
	}
	per := sp.Server / time.Duration(acked)
	c := cell{fmtMicros(per), float64(per), true}
	if sp.DB > 0 {
		c.text += " + " + fmtMicros(sp.DB/time.Duration(acked)) + " PostgreSQL"
	}
	return c
}

// gcCell is the garbage collector's share of the server's CPU during the read workloads.
func gcCell(r *serverResult) cell {
	g := r.ReadsGC
	if g == nil || g.CPU <= 0 {
		return none()
	}
	share := g.GC.Seconds() / g.CPU.Seconds()
	return cell{fmt.Sprintf("%.1f%% (%.2f of %.2f s)", 100*share, g.GC.Seconds(), g.CPU.Seconds()), share, true}
}
