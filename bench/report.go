package main

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

func fmtDur(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.1f ms", ms)
	default:
		return fmt.Sprintf("%.2f s", ms/1000)
	}
}

func fmtCount(n int) string {
	s := fmt.Sprint(n)
	if n < 10000 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// cell is one measured value: shown as text, compared by num.
type cell struct {
	text string
	num  float64
	ok   bool // has a value
}

func none() cell { return cell{text: "-"} }

func durCell(d time.Duration) cell {
	if d < 0 {
		return none()
	}
	return cell{fmtDur(d), float64(d), true}
}

func numCell(v float64, format string) cell { return cell{fmt.Sprintf(format, v), v, true} }

func intCell(n int) cell { return cell{fmtCount(n), float64(n), true} }

type row struct {
	workload, metric string
	hive, peer       cell
	target           string
	// met judges hive's value (and the peer's, for relative targets); nil: no target
	met   func(h, p cell) bool
	ratio bool
}

func renderTable(c *config, res *results) string {
	h, p := res.hive, res.peer
	if h == nil {
		h = &serverResult{}
	}
	if p == nil {
		p = &serverResult{}
	}
	var rows []row
	add := func(r row) { rows = append(rows, r) }
	stored := fmtCount(res.stored)

	// ingest
	ing := func(r *serverResult, f func(*ingestResult) cell) cell {
		if r.Ingest == nil {
			return none()
		}
		return f(r.Ingest)
	}
	wl := fmt.Sprintf("ingest: %d publishers, %s EVENTs (at most %s), each waits for its OK", c.publishers, fmtCount(c.ingest), c.ingestMax)
	add(row{wl, "events/s",
		ing(h, func(x *ingestResult) cell { return numCell(x.Rate, "%.0f") }),
		ing(p, func(x *ingestResult) cell { return numCell(x.Rate, "%.0f") }),
		"≥ 3× peer", func(h, p cell) bool { return h.ok && p.ok && h.num >= 3*p.num }, true})
	add(row{"", "OK p50",
		ing(h, func(x *ingestResult) cell { return durCell(x.P50) }),
		ing(p, func(x *ingestResult) cell { return durCell(x.P50) }), "", nil, true})
	add(row{"", "OK p99",
		ing(h, func(x *ingestResult) cell { return durCell(x.P99) }),
		ing(p, func(x *ingestResult) cell { return durCell(x.P99) }),
		"< 20 ms", func(h, _ cell) bool { return h.ok && h.num < float64(20*time.Millisecond) }, true})
	add(row{"", "EVENTs acknowledged",
		ing(h, func(x *ingestResult) cell { return intCell(x.N) }),
		ing(p, func(x *ingestResult) cell { return intCell(x.N) }), "", nil, false})
	add(row{"", "refused",
		ing(h, func(x *ingestResult) cell { return intCell(x.Rejected) }),
		ing(p, func(x *ingestResult) cell { return intCell(x.Rejected) }), "", nil, false})

	// burst
	bu := func(r *serverResult, f func(*burstResult) cell) cell {
		if r.Burst == nil {
			return none()
		}
		return f(r.Burst)
	}
	wl = fmt.Sprintf("burst: %d connections × %s pipelined EVENTs", c.burstConns, fmtCount(c.burstPerConn))
	add(row{wl, "time to last OK",
		bu(h, func(x *burstResult) cell { return durCell(x.TimeToLast) }),
		bu(p, func(x *burstResult) cell { return durCell(x.TimeToLast) }), "", nil, true})
	add(row{"", fmt.Sprintf("OKs missing (waited ≤ %s)", c.burstWait),
		bu(h, func(x *burstResult) cell { return intCell(x.Missing) }),
		bu(p, func(x *burstResult) cell { return intCell(x.Missing) }),
		"0", func(h, _ cell) bool { return h.ok && h.num == 0 }, false})
	add(row{"", "refused (OK false)",
		bu(h, func(x *burstResult) cell { return intCell(x.Rejected) }),
		bu(p, func(x *burstResult) cell { return intCell(x.Rejected) }), "", nil, false})
	add(row{"", "peak RSS growth",
		bu(h, func(x *burstResult) cell { return numCell(float64(x.GrowthKB)/1024, "%.1f MB") }),
		bu(p, func(x *burstResult) cell { return numCell(float64(x.GrowthKB)/1024, "%.1f MB") }),
		"< 64 MB", func(h, _ cell) bool { return h.ok && h.num < 64 }, true})

	// reads
	q := func(r *serverResult, name string, f func(*queryResult) cell) cell {
		if r.Queries == nil || r.Queries[name] == nil {
			return none()
		}
		return f(r.Queries[name])
	}
	zero := func(h, _ cell) bool { return h.ok && h.num == 0 }
	type readRow struct {
		name, label string
		p99         time.Duration
	}
	var reads []readRow
	for _, rq := range readQueries {
		label := fmt.Sprintf("lookup at %s: `%s`", stored, rq.shape)
		switch rq.name {
		case "history":
			label = fmt.Sprintf("channel history at %s stored: `%s` over %d channels", stored, rq.shape, numChannels)
		case "search", "search common":
			label = fmt.Sprintf("search at %s stored: `%s`", stored, rq.shape)
		}
		reads = append(reads, readRow{rq.name, label, cmp.Or(rq.p99, 2*time.Millisecond)})
	}
	for _, rd := range reads {
		name := rd.name
		under := func(h, _ cell) bool { return h.ok && h.num < float64(rd.p99) }
		add(row{rd.label, "REQ→EOSE p50",
			q(h, name, func(x *queryResult) cell { return durCell(x.P50) }),
			q(p, name, func(x *queryResult) cell { return durCell(x.P50) }), "", nil, true})
		target, judge := "< "+fmtDur(rd.p99), under
		if rd.p99 < 0 {
			target, judge = "", nil
		}
		add(row{"", "REQ→EOSE p99",
			q(h, name, func(x *queryResult) cell { return durCell(x.P99) }),
			q(p, name, func(x *queryResult) cell { return durCell(x.P99) }), target, judge, true})
		wrong := func(x *queryResult) cell {
			if x.N == 0 {
				return none()
			}
			return intCell(x.Wrong)
		}
		add(row{"", "events not matching filter",
			q(h, name, wrong), q(p, name, wrong), "0", zero, false})
		add(row{"", "REQs timed / events returned",
			q(h, name, func(x *queryResult) cell { return cell{fmt.Sprintf("%d / %s", x.N, fmtCount(x.Returned)), 0, true} }),
			q(p, name, func(x *queryResult) cell { return cell{fmt.Sprintf("%d / %s", x.N, fmtCount(x.Returned)), 0, true} }), "", nil, false})
		if (h.Queries != nil && h.Queries[name] != nil && h.Queries[name].Closed > 0) || (p.Queries != nil && p.Queries[name] != nil && p.Queries[name].Closed > 0) {
			add(row{"", "REQs CLOSED",
				q(h, name, func(x *queryResult) cell { return intCell(x.Closed) }),
				q(p, name, func(x *queryResult) cell { return intCell(x.Closed) }), "", nil, false})
		}
	}

	// fan-out
	fanRows := func(wl string, get func(*serverResult) *fanoutResult, p99 time.Duration) {
		fo := func(r *serverResult, f func(*fanoutResult) cell) cell {
			if get(r) == nil {
				return none()
			}
			return f(get(r))
		}
		add(row{wl, "delivery p50",
			fo(h, func(x *fanoutResult) cell { return durCell(x.P50) }),
			fo(p, func(x *fanoutResult) cell { return durCell(x.P50) }), "", nil, true})
		add(row{"", "delivery p99",
			fo(h, func(x *fanoutResult) cell { return durCell(x.P99) }),
			fo(p, func(x *fanoutResult) cell { return durCell(x.P99) }),
			"< " + fmtDur(p99), func(h, _ cell) bool { return h.ok && h.num < float64(p99) }, true})
		add(row{"", "missed deliveries",
			fo(h, func(x *fanoutResult) cell { return intCell(x.Missed) }),
			fo(p, func(x *fanoutResult) cell { return intCell(x.Missed) }), "0", zero, false})
	}
	spread := ""
	if c.hiveInstances > 1 {
		spread = fmt.Sprintf(" (hive: publisher on instance 1, subscribers spread over all %d)", c.hiveInstances)
	}
	fanRows(fmt.Sprintf("fan-out: 1 publisher, %s subscribers on one channel, %d events %s apart%s", fmtCount(c.fanoutSubs), c.fanoutEvents, c.fanoutSpacing, spread),
		func(r *serverResult) *fanoutResult { return r.Fanout }, 15*time.Millisecond)
	if h.FanoutCross != nil {
		others := "instance 2"
		if c.hiveInstances > 2 {
			others = fmt.Sprintf("instances 2 to %d", c.hiveInstances)
		}
		fanRows(fmt.Sprintf("fan-out across instances: 1 publisher on instance 1, %s subscribers on %s, %d events %s apart", fmtCount(c.fanoutSubs), others, c.fanoutEvents, c.fanoutSpacing),
			func(r *serverResult) *fanoutResult { return r.FanoutCross }, 50*time.Millisecond)
	}

	// idle
	id := func(r *serverResult, f func(*idleResult) cell) cell {
		if r.Idle == nil {
			return none()
		}
		return f(r.Idle)
	}
	wl = fmt.Sprintf("idle: %s connections, one open REQ each", fmtCount(c.idleConns))
	add(row{wl, "RSS per connection",
		id(h, func(x *idleResult) cell { return numCell(x.KBPerConn, "%.1f KB") }),
		id(p, func(x *idleResult) cell { return numCell(x.KBPerConn, "%.1f KB") }),
		"≤ 8 KB", func(h, _ cell) bool { return h.ok && h.num <= 8 }, true})
	add(row{"", "RSS before → after",
		id(h, func(x *idleResult) cell {
			return cell{fmt.Sprintf("%d → %d MB", x.RSSBefore/1024, x.RSSAfter/1024), 0, true}
		}),
		id(p, func(x *idleResult) cell {
			return cell{fmt.Sprintf("%d → %d MB", x.RSSBefore/1024, x.RSSAfter/1024), 0, true}
		}), "", nil, false})

	// info
	add(row{"info (untimed)", fmt.Sprintf("preload of %s stored events", stored),
		importCell(h), importCell(p), "", nil, false})
	add(row{"", "CPU of other processes during the workloads (cores)",
		othersCell(h), othersCell(p), "", nil, false})
	add(row{"", "RSS / peak RSS at the end",
		memCell(h), memCell(p), "", nil, false})
	add(row{"", "load average (1, 5, 15 min) before → after the workloads",
		loadCell(h), loadCell(p), "", nil, false})
	for _, w := range workloadOrder {
		if h.CPU[w].Wall == 0 && p.CPU[w].Wall == 0 {
			continue
		}
		add(row{"", fmt.Sprintf("CPU during %s: server (+ PostgreSQL) / bench client / other processes, in cores", w),
			cpuCell(h, w), cpuCell(p, w), "", nil, false})
	}

	var b strings.Builder
	b.WriteString("| workload | metric | hive | peer | hive/peer | target for hive | hive |\n")
	b.WriteString("|---|---|--:|--:|--:|---|---|\n")
	for _, r := range rows {
		ratio := ""
		if r.ratio && r.hive.ok && r.peer.ok && r.peer.num != 0 {
			ratio = fmtRatio(r.hive.num / r.peer.num)
		}
		verdict := ""
		if r.met != nil {
			switch {
			case !r.hive.ok:
				verdict = "not measured"
			case r.met(r.hive, r.peer):
				verdict = "met"
			default:
				verdict = "**missed**"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.workload, r.metric, r.hive.text, r.peer.text, ratio, r.target, verdict)
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

func fmtRatio(x float64) string {
	switch {
	case x >= 10:
		return fmt.Sprintf("%.0f×", x)
	case x >= 0.1:
		return fmt.Sprintf("%.2f×", x)
	default:
		return fmt.Sprintf("%.2g×", x)
	}
}

func importCell(r *serverResult) cell {
	switch {
	case r.ImportCached:
		return cell{text: "cached"}
	case r.Import == 0:
		return none()
	}
	return durCell(r.Import)
}

func othersCell(r *serverResult) cell {
	if r.Wall == 0 {
		return none()
	}
	return numCell(r.Others.Seconds()/r.Wall.Seconds(), "%.2f")
}

// workloadOrder is the order in which the workloads run.
var workloadOrder = []string{"reads", "ingest", "burst", "fanout", "fanout-cross", "idle"}

func loadCell(r *serverResult) cell {
	if r.Load[0] == "" {
		return none()
	}
	return cell{text: r.Load[0] + " → " + r.Load[1], ok: true}
}

// cpuCell is the CPU a workload used, by process, as cores busy over its wall time.
func cpuCell(r *serverResult, w string) cell {
	sp, ok := r.CPU[w]
	if !ok || sp.Wall == 0 {
		return none()
	}
	cores := func(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()/sp.Wall.Seconds()) }
	srv := cores(sp.Server)
	if sp.DB > 0 {
		srv += " + " + cores(sp.DB)
	}
	return cell{text: srv + " / " + cores(sp.Client) + " / " + cores(sp.Others), ok: true}
}

func memCell(r *serverResult) cell {
	if r.RSSEnd == 0 {
		return none()
	}
	return cell{fmt.Sprintf("%d / %d MB", r.RSSEnd/1024, r.HWMEnd/1024), 0, true}
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func unameM() string {
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		return runtime.GOARCH
	}
	return strings.TrimSpace(string(out))
}

// hiveRevision names the hive source that was built: its commit, and whether files outside
// bench/ differed from it.
func hiveRevision(src string) string {
	if src == "" {
		return "a prebuilt binary (-hive-bin)"
	}
	out, err := exec.Command("git", "-C", src, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "an unknown revision"
	}
	rev := "commit " + strings.TrimSpace(string(out))
	st, err := exec.Command("git", "-C", src, "status", "--porcelain", "--", ".", ":(exclude)bench").Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += " with uncommitted changes"
	}
	return rev
}

func envSection(c *config) string {
	mode := "full"
	if c.quick {
		mode = "quick (-quick)"
	}
	src := c.hiveSrc
	if c.hiveBin != "" {
		src = ""
	}
	log := "hive over its SQLite log"
	if c.hiveStore != "" {
		log = fmt.Sprintf("hive as %d instance(s) over one PostgreSQL log (-hive-store)", c.hiveInstances)
	}
	return fmt.Sprintf("Run of %s: `uname -m` %s, %s, %d cores, %s; hive built from %s; %s. Mode: %s, %s stored events; the whole run took %s. hive and the peer ran one after the other on the same machine, each alone, sharing its cores with the benchmark client.\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), unameM(), cpuModel(), runtime.NumCPU(), runtime.Version(), hiveRevision(src), log, mode, fmtCount(c.stored), time.Since(logStart).Round(time.Second))
}

const (
	beginMarker = "<!-- BEGIN RESULTS (written by `make bench`) -->"
	endMarker   = "<!-- END RESULTS -->"
)

// writeSection replaces what lies between the begin and end markers of the README at path.
func writeSection(path, begin, end, body string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no markers %s ... %s", path, begin, end)
	}
	out := s[:i+len(begin)] + "\n\n" + body + "\n" + s[j:]
	return os.WriteFile(path, []byte(out), 0o644)
}
