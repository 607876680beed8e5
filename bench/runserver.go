package main

import (
	"context"
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// liveSets are the pre-signed events of the write workloads.
type liveSets struct {
	ingest, burst, fanout, cross, sendtail []*nostr.Event
}

// workloadOrder is the order in which the workloads run.
var workloadOrder = []string{"reads", "ingest", "burst", "fanout", "fanout-cross", "sendtail", "idle"}

// runServer takes one target through setup, preload and every workload, then stops it.
// quiet waits for background setup work, so nothing else runs during the timed workloads.
func runServer(ctx context.Context, c *config, t *target, r *serverResult, corpus string, meta *corpusMeta, live liveSets, quiet func()) {
	track(t)
	defer t.kill()
	logf("==== %s (%d instance(s)) ====", t.name, len(t.servers))
	s := t.first()
	if s.restore != nil && s.restore() {
		r.ImportCached = true
		logf("%s: using the cached preloaded database (-no-cache to import anew)", t.name)
		if err := t.start(ctx); err != nil {
			r.fail("%s start: %v", t.name, err)
			return
		}
	} else {
		// 1. start on an empty data dir, create the channels, stop
		if err := t.start(ctx); err != nil {
			r.fail("%s start: %v", t.name, err)
			return
		}
		if err := createChannels(ctx, t, meta.Channels); err != nil {
			r.fail("%s channel create: %v", t.name, err)
			return
		}
		logf("%s: %d channels created (AUTH on connect: %v)", t.name, len(meta.Channels), t.auth.sends)
		if s.preload != nil {
			if err := t.stop(); err != nil {
				r.fail("%v", err)
				return
			}
			// 2. preload the stored events (not timed as a workload)
			logf("%s: importing %d stored events", t.name, meta.N)
			t0 := time.Now()
			if err := s.preload(ctx, corpus); err != nil {
				r.fail("%s import: %v", t.name, err)
				return
			}
			r.Import = time.Since(t0)
			logf("%s: imported in %s (%.0f events/s)", t.name, r.Import.Round(time.Millisecond), float64(meta.N)/r.Import.Seconds())
			if s.save != nil {
				if err := s.save(); err != nil {
					logf("%s: caching the database: %v", t.name, err)
				}
			}
			// 3. start again and run the workloads
			if err := t.start(ctx); err != nil {
				r.fail("%s restart: %v", t.name, err)
				return
			}
		}
	}
	quiet()
	r.CPU = map[string]cpuSplit{}
	r.Load[0] = loadAvg()
	ours := func() time.Duration { return t.cpu() + t.dbCPU() }
	first := true
	step := func(name string, fn func() error) {
		if !c.enabled[name] || ctx.Err() != nil {
			return
		}
		// every workload gets freshly started servers, so one workload's leftovers (memory,
		// a wedged process) do not leak into the next one's figures
		if !first {
			if err := t.stop(); err != nil {
				logf("%s: %v; killed it", t.name, err)
			}
			if err := t.start(ctx); err != nil {
				r.fail("%s restart before %s: %v", t.name, name, err)
				return
			}
		}
		first = false
		if d := t.dead(); d != nil {
			r.fail("%s: %s skipped: %s is not running; log:\n%s", t.name, name, d.name, tail(d.logPath, 20))
			return
		}
		if c.settle > 0 {
			if busy := waitQuiet(ours, c.settle); busy >= 0.2 {
				logf("%s: other processes still use %.0f%% of a core after waiting %s; %s runs anyway", t.name, busy*100, c.settle, name)
			}
		}
		rss, hwm := t.mem()
		logf("%s: -- %s (RSS %d MB, peak %d MB; load average %s)", t.name, name, rss/1024, hwm/1024, loadAvg())
		var activity func() map[string]float64
		if c.pgWaits && t.db != nil {
			activity = t.db.sampleWaits(ctx)
		}
		disk := t.sampleDisk(ctx)
		cpu0, db0, self0, m0, w0, st0, t0 := t.cpu(), t.dbCPU(), selfCPU(), machineBusy(), t.written(), t.stored(), time.Now()
		if err := fn(); err != nil {
			r.fail("%s %s: %v", t.name, name, err)
		}
		sp := cpuSplit{Wall: time.Since(t0), Server: t.cpu() - cpu0, DB: t.dbCPU() - db0, Client: selfCPU() - self0}
		all := machineBusy() - m0
		if activity != nil {
			sp.Activity = activity()
		}
		written, stored, peak := t.written()-w0, t.stored()-st0, disk()
		sp.Stored, sp.Written = stored, written
		sp.Others = max(0, all-sp.Server-sp.DB-sp.Client)
		r.Wall += sp.Wall
		r.Others += sp.Others
		r.CPU[name] = sp
		db := ""
		if t.db != nil {
			db = fmt.Sprintf(", PostgreSQL %s", sp.DB.Round(time.Millisecond))
		}
		logf("%s: %s took %s; CPU: server %s%s, bench client %s, other processes %s (%.0f%% of one core); server wrote %.1f MB (files and sockets); load average %s", t.name, name, sp.Wall.Round(time.Millisecond),
			sp.Server.Round(time.Millisecond), db, sp.Client.Round(time.Millisecond), sp.Others.Round(time.Millisecond), 100*sp.Others.Seconds()/sp.Wall.Seconds(), float64(written)/1e6, loadAvg())
		logf("%s: %s: written to storage %.1f MB (/proc/PID/io write_bytes)", t.name, name, float64(stored)/1e6)
		if peak.DB > 0 {
			logf("%s: %s: WAL at most %.1f MB, with the database at %.1f MB", t.name, name, float64(peak.WAL)/1e6, float64(peak.DB)/1e6)
		}
		if sp.Activity != nil {
			logf("%s: PostgreSQL backends during %s (average number in each state): %s", t.name, name, fmtActivity(sp.Activity))
		}
		if d := t.dead(); d != nil {
			r.fail("%s died during %s; log:\n%s", d.name, name, tail(d.logPath, 20))
		}
	}
	step("reads", func() error {
		gc := t.startGCShare()
		qs, err := runReads(ctx, t, meta, querySizes{history: c.history, lookups: c.lookups, budget: c.queryBudget, only: c.onlyQueries()})
		r.Queries = map[string]*queryResult{}
		for _, q := range qs {
			r.Queries[q.Name] = q
		}
		if r.ReadsGC = gc(); r.ReadsGC != nil {
			logf("%s: reads: garbage collection %s of the server's %s CPU", t.name, r.ReadsGC.GC.Round(time.Millisecond), r.ReadsGC.CPU.Round(time.Millisecond))
		}
		return err
	})
	step("ingest", func() error {
		x, err := runIngest(ctx, t, live.ingest, c.publishers, c.ingestMax)
		if x != nil {
			logf("%s: ingest: %.0f events/s, OK p50 %s p99 %s, refused %d %s", t.name, x.Rate, fmtDur(x.P50), fmtDur(x.P99), x.Rejected, x.Reason)
		}
		r.Ingest = x
		return err
	})
	step("burst", func() error {
		x, err := runBurst(ctx, t, live.burst, c.burstConns, c.burstWait)
		if x != nil {
			logf("%s: burst: last OK after %s, missing %d, refused %d %s, RSS before %d MB, peak after %d MB", t.name, fmtDur(x.TimeToLast), x.Missing, x.Rejected, x.Reason, x.RSSBefore/1024, x.HWMAfter/1024)
		}
		r.Burst = x
		return err
	})
	// fan is a fan-out workload: subs subscribers on subURLs, evs published on the first URL
	fan := func(name, what string, subURLs []string, evs []*nostr.Event, subs int, spacing time.Duration, out **fanoutResult) {
		step(name, func() error {
			x, err := runFanout(ctx, t, subURLs, t.urls()[0], meta.Channels[0], evs, subs, spacing)
			if x != nil {
				logf("%s: %s: p50 %s p99 %s missed %d refused %d", t.name, what, fmtDur(x.P50), fmtDur(x.P99), x.Missed, x.Rejected)
			}
			*out = x
			return err
		})
	}
	urls := t.urls()
	fan("fanout", "fan-out", urls, live.fanout, c.fanoutSubs, c.fanoutSpacing, &r.Fanout)
	if len(urls) > 1 {
		fan("fanout-cross", "fan-out across instances", urls[1:], live.cross, c.fanoutSubs, c.fanoutSpacing, &r.FanoutCross)
	}
	// send → tail: what a person feels between `hive send` and `hive tail --follow`, on one hub
	fan("sendtail", "send → tail", urls[:1], live.sendtail, 1, c.sendtailSpace, &r.SendTail)
	step("idle", func() error {
		x, err := runIdle(ctx, t, meta.Channels[0], c.idleConns)
		if x != nil {
			logf("%s: idle: RSS %d -> %d MB, %.1f KB/conn", t.name, x.RSSBefore/1024, x.RSSAfter/1024, x.KBPerConn)
		}
		r.Idle = x
		return err
	})
	r.Load[1] = loadAvg()
	r.RSSEnd, r.HWMEnd = t.mem()
	if err := t.stop(); err != nil {
		r.fail("%v", err)
	}
}
