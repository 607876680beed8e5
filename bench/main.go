// Command bench runs the same workloads against hive and against a peer relay (khatru over
// eventstore's sqlite3 backend) in one run and prints a Markdown table side by side.
//
//	go run -tags libsecp256k1 . [-quick] [-write-readme]
//	go run -tags libsecp256k1 . bridge [-runs 3] [-write-readme]   (hive bridge's benchmarks, see bridge.go)
//
// `bench peer --addr ... --db ...` is the peer relay itself; the benchmark re-executes its own
// binary that way so the peer is a separate process whose RSS can be read.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

var logStart = time.Now()

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%7.1fs] %s\n", time.Since(logStart).Seconds(), fmt.Sprintf(format, args...))
}

func signalNotify(c chan os.Signal) { signal.Notify(c, syscall.SIGTERM, syscall.SIGINT) }

type config struct {
	quick          bool
	stored         int
	ingest         int
	publishers     int
	burstConns     int
	burstPerConn   int
	ingestMax      time.Duration
	burstWait      time.Duration
	history        int
	lookups        int
	queryBudget    time.Duration
	fanoutSubs     int
	fanoutEvents   int
	fanoutSpacing  time.Duration
	idleConns      int
	targets        string
	workloads      string
	hiveSrc        string
	hiveBin        string
	hivePprof      string
	hiveStore      string // hive serve --store: a postgres:// log
	dataDir        string
	keep           bool
	settle         time.Duration
	noCache        bool
	writeReadme    bool
	readme         string
	enabledTargets map[string]bool
	enabled        map[string]bool
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "peer" {
		if err := runPeer(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "peer:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "bridge" {
		if err := runBridge(os.Args[2:]); err != nil {
			logf("error: %v", err)
			os.Exit(1)
		}
		return
	}
	var c config
	flag.BoolVar(&c.quick, "quick", false, "100k stored events instead of 1M, fewer samples")
	flag.IntVar(&c.stored, "stored", 0, "stored events preloaded before the read workloads (default 1000000, 100000 with -quick)")
	flag.IntVar(&c.ingest, "ingest", 0, "events in the ingest workload (default 40000, 20000 with -quick)")
	flag.IntVar(&c.publishers, "publishers", 8, "ingest publishers")
	flag.IntVar(&c.burstConns, "burst-conns", 8, "burst connections")
	flag.IntVar(&c.burstPerConn, "burst-per-conn", 10000, "pipelined EVENTs per burst connection")
	flag.DurationVar(&c.ingestMax, "ingest-max", 60*time.Second, "stop the ingest workload after this long")
	flag.DurationVar(&c.burstWait, "burst-wait", 60*time.Second, "give up waiting for burst OKs this long after the last EVENT was sent")
	flag.IntVar(&c.history, "history", 0, "channel history REQs (default 2000, 1000 with -quick)")
	flag.IntVar(&c.lookups, "lookups", 0, "REQs per exact-lookup kind (default 1000, 300 with -quick)")
	flag.DurationVar(&c.queryBudget, "query-budget", 0, "time budget per query kind; at least 10 run (default 15s, 8s with -quick)")
	flag.IntVar(&c.fanoutSubs, "fanout-subs", 1000, "fan-out subscribers")
	flag.IntVar(&c.fanoutEvents, "fanout-events", 200, "fan-out events published")
	flag.DurationVar(&c.fanoutSpacing, "fanout-spacing", 20*time.Millisecond, "time between fan-out publishes")
	flag.IntVar(&c.idleConns, "idle-conns", 4000, "idle connections, each with one open REQ")
	flag.StringVar(&c.targets, "targets", "hive,peer", "servers to run")
	flag.StringVar(&c.workloads, "workloads", "reads,ingest,burst,fanout,idle", "workloads to run")
	flag.StringVar(&c.hiveSrc, "hive-src", "..", "hive's main module (built with go build ./cmd/hive)")
	flag.StringVar(&c.hiveBin, "hive-bin", "", "use this hive binary instead of building one")
	flag.StringVar(&c.hivePprof, "hive-pprof", "", "pass --pprof ADDR to hive serve")
	flag.StringVar(&c.hiveStore, "hive-store", "", "run hive over this postgres:// log (hive serve/import --store; no database cache)")
	flag.StringVar(&c.dataDir, "data", ".data", "cache and scratch directory (corpus cache, databases)")
	flag.BoolVar(&c.noCache, "no-cache", false, "import the stored events even when a cached preloaded database fits")
	flag.DurationVar(&c.settle, "settle", 30*time.Second, "before each workload, wait at most this long for other processes to use < 20% of a core (0: do not wait)")
	flag.BoolVar(&c.keep, "keep", false, "keep the databases and logs of this run")
	flag.BoolVar(&c.writeReadme, "write-readme", false, "rewrite the results section of -readme")
	flag.StringVar(&c.readme, "readme", "README.md", "README whose results section -write-readme rewrites")
	cpuprofile := flag.String("cpuprofile", "", "write the benchmark client's own CPU profile here")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			logf("error: %v", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	def := func(v *int, full, quick int) {
		if *v == 0 {
			*v = full
			if c.quick {
				*v = quick
			}
		}
	}
	def(&c.stored, 1000000, 100000)
	def(&c.ingest, 40000, 20000)
	def(&c.history, 2000, 1000)
	def(&c.lookups, 1000, 300)
	if c.queryBudget == 0 {
		c.queryBudget = 15 * time.Second
		if c.quick {
			c.queryBudget = 8 * time.Second
		}
	}
	c.enabledTargets = set(c.targets)
	c.enabled = set(c.workloads)

	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signalNotify(sig)
	go func() {
		<-sig
		logf("interrupted: stopping servers")
		cancel()
		killAll()
		os.Exit(130)
	}()
	res, err := run(ctx, &c)
	killAll()
	if err != nil {
		logf("error: %v", err)
		os.Exit(1)
	}
	table := renderTable(&c, res)
	fmt.Print(table)
	if c.writeReadme {
		if err := writeSection(c.readme, beginMarker, endMarker, envSection(&c)+"\n"+table); err != nil {
			logf("error: %v", err)
			os.Exit(1)
		}
		logf("wrote results into %s", c.readme)
	}
}

func set(list string) map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			m[s] = true
		}
	}
	return m
}

var (
	liveMu  sync.Mutex
	running []*server
)

func track(s *server) {
	liveMu.Lock()
	running = append(running, s)
	liveMu.Unlock()
}

func killAll() {
	liveMu.Lock()
	defer liveMu.Unlock()
	for _, s := range running {
		s.kill()
	}
}

type serverResult struct {
	Errors []string
	Import time.Duration
	// ImportCached: the preloaded database came from the cache
	ImportCached bool
	Ingest       *ingestResult
	Burst        *burstResult
	Queries      map[string]*queryResult
	Fanout       *fanoutResult
	Idle         *idleResult
	RSSEnd       int64
	HWMEnd       int64
	Wall         time.Duration // time spent in workloads
	Others       time.Duration // CPU other processes of the machine used meanwhile
}

func (r *serverResult) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	logf("FAILED: %s", msg)
	r.Errors = append(r.Errors, msg)
}

type results struct {
	hive, peer *serverResult
	stored     int
}

func run(ctx context.Context, c *config) (*results, error) {
	if err := os.MkdirAll(c.dataDir, 0o755); err != nil {
		return nil, err
	}
	dataDir, err := filepath.Abs(c.dataDir)
	if err != nil {
		return nil, err
	}
	runDir, err := os.MkdirTemp(dataDir, "run-")
	if err != nil {
		return nil, err
	}
	if c.keep {
		logf("keeping run files in %s", runDir)
	} else {
		defer os.RemoveAll(runDir)
	}

	corpus, meta, err := loadOrBuildCorpus(dataDir, c.stored)
	if err != nil {
		return nil, err
	}
	logf("signing live events for the write workloads")
	ingestEvs, err := liveEvents(meta, c.ingest, -1, 11)
	if err != nil {
		return nil, err
	}
	burstEvs, err := liveEvents(meta, c.burstConns*c.burstPerConn, -1, 12)
	if err != nil {
		return nil, err
	}
	fanEvs, err := liveEvents(meta, c.fanoutEvents, 0, 13)
	if err != nil {
		return nil, err
	}

	res := &results{stored: c.stored}
	cacheDir := ""
	if !c.noCache {
		cacheDir = filepath.Join(dataDir, "cache")
	}
	var peer *server
	var peerImport chan error
	if c.enabledTargets["peer"] {
		res.peer = &serverResult{}
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(runDir, "peer")
		os.MkdirAll(dir, 0o755)
		addr, err := freePort()
		if err != nil {
			return nil, err
		}
		peer = newPeer(self, dir, addr)
		// The peer's preload runs in this process while hive builds and imports: it is not
		// timed, and it is finished before any of hive's workloads starts.
		peerImport = make(chan error, 1)
		go func() {
			db := filepath.Join(dir, "peer.db")
			cached := filepath.Join(cacheDir, peerCacheName(c.stored), "peer.db")
			if cacheDir != "" && exists(cached) {
				logf("peer: using the cached preloaded database")
				res.peer.ImportCached = true
				peerImport <- copyFile(cached, db)
				return
			}
			t0 := time.Now()
			logf("peer: importing %d stored events (in the background)", meta.N)
			err := peer.preload(ctx, corpus)
			res.peer.Import = time.Since(t0)
			logf("peer: imported in %s", res.peer.Import.Round(time.Millisecond))
			if err == nil && cacheDir != "" {
				if err := saveDirCache(dir, filepath.Dir(cached), ""); err != nil {
					logf("peer: caching the database: %v", err)
				}
			}
			peerImport <- err
		}()
	}
	waitPeerImport := func() {}
	var peerImportErr error
	if peerImport != nil {
		var once sync.Once
		waitPeerImport = func() {
			once.Do(func() {
				peerImportErr = <-peerImport
			})
		}
	}
	if c.enabledTargets["hive"] {
		res.hive = &serverResult{}
		bin := c.hiveBin
		if bin == "" {
			bin = filepath.Join(runDir, "bin", "hive")
			src, _ := filepath.Abs(c.hiveSrc)
			if err := buildHive(ctx, src, bin); err != nil {
				res.hive.fail("%v", err)
				bin = ""
			}
		}
		if bin != "" {
			dir := filepath.Join(runDir, "hive")
			os.MkdirAll(dir, 0o755)
			addr, err := freePort()
			if err != nil {
				return nil, err
			}
			hiveCache := cacheDir
			if c.hiveStore != "" {
				hiveCache = "" // the database lives in PostgreSQL, not in a directory to copy
			}
			s := newHive(bin, dir, addr, c.hivePprof, c.hiveStore, hiveCache, c.stored)
			runServer(ctx, c, s, res.hive, corpus, meta, ingestEvs, burstEvs, fanEvs, waitPeerImport)
		}
	}
	if peer != nil {
		waitPeerImport()
		if peerImportErr != nil {
			res.peer.fail("peer import: %v", peerImportErr)
		} else {
			peer.preload = nil // done
			runServer(ctx, c, peer, res.peer, corpus, meta, ingestEvs, burstEvs, fanEvs, waitPeerImport)
		}
	}
	return res, nil
}

// runServer takes one server through setup, preload and every workload, then stops it.
// quiet waits for background setup work, so nothing else runs during the timed workloads.
func runServer(ctx context.Context, c *config, s *server, r *serverResult, corpus string, meta *corpusMeta, ingestEvs, burstEvs, fanEvs []*nostr.Event, quiet func()) {
	track(s)
	defer s.kill()
	logf("==== %s ====", s.name)
	if s.restore != nil && s.restore() {
		r.ImportCached = true
		logf("%s: using the cached preloaded database (-no-cache to import anew)", s.name)
		if err := s.start(ctx); err != nil {
			r.fail("%s start: %v", s.name, err)
			return
		}
	} else {
		// 1. start on an empty data dir, create the channels, stop
		if err := s.start(ctx); err != nil {
			r.fail("%s start: %v", s.name, err)
			return
		}
		if err := createChannels(ctx, s, meta.Channels); err != nil {
			r.fail("%s channel create: %v", s.name, err)
			return
		}
		logf("%s: %d channels created (AUTH on connect: %v)", s.name, len(meta.Channels), s.auth.sends)
		if s.preload != nil {
			if err := s.stop(); err != nil {
				r.fail("%v", err)
				return
			}
			// 2. preload the stored events (not timed as a workload)
			logf("%s: importing %d stored events", s.name, meta.N)
			t0 := time.Now()
			if err := s.preload(ctx, corpus); err != nil {
				r.fail("%s import: %v", s.name, err)
				return
			}
			r.Import = time.Since(t0)
			logf("%s: imported in %s (%.0f events/s)", s.name, r.Import.Round(time.Millisecond), float64(meta.N)/r.Import.Seconds())
			if s.save != nil {
				if err := s.save(); err != nil {
					logf("%s: caching the database: %v", s.name, err)
				}
			}
			// 3. start again and run the workloads
			if err := s.start(ctx); err != nil {
				r.fail("%s restart: %v", s.name, err)
				return
			}
		}
	}
	quiet()
	first := true
	step := func(name string, fn func() error) {
		if !c.enabled[name] || ctx.Err() != nil {
			return
		}
		// every workload gets a freshly started server, so one workload's leftovers (memory,
		// a wedged process) do not leak into the next one's figures
		if !first {
			if err := s.stop(); err != nil {
				logf("%s: %v; killed it", s.name, err)
			}
			if err := s.start(ctx); err != nil {
				r.fail("%s restart before %s: %v", s.name, name, err)
				return
			}
		}
		first = false
		if !s.alive() {
			r.fail("%s: %s skipped: server is not running; log:\n%s", s.name, name, tail(s.logPath, 20))
			return
		}
		if c.settle > 0 {
			if busy := waitQuiet(s.pid(), c.settle); busy >= 0.2 {
				logf("%s: other processes still use %.0f%% of a core after waiting %s; %s runs anyway", s.name, busy*100, c.settle, name)
			}
		}
		rss, hwm := procMem(s.pid())
		logf("%s: -- %s (RSS %d MB, peak %d MB)", s.name, name, rss/1024, hwm/1024)
		cpu0, self0, m0, w0, t0 := procCPU(s.pid()), selfCPU(), machineBusy(), procWritten(s.pid()), time.Now()
		if err := fn(); err != nil {
			r.fail("%s %s: %v", s.name, name, err)
		}
		wall := time.Since(t0)
		srv, self, all := procCPU(s.pid())-cpu0, selfCPU()-self0, machineBusy()-m0
		written := procWritten(s.pid()) - w0
		others := max(0, all-srv-self)
		r.Wall += wall
		r.Others += others
		logf("%s: %s took %s; CPU: server %s, bench client %s, other processes %s (%.0f%% of one core); server wrote %.1f MB (files and sockets)", s.name, name, wall.Round(time.Millisecond),
			srv.Round(time.Millisecond), self.Round(time.Millisecond), others.Round(time.Millisecond), 100*others.Seconds()/wall.Seconds(), float64(written)/1e6)
		if !s.alive() {
			r.fail("%s died during %s; log:\n%s", s.name, name, tail(s.logPath, 20))
		}
	}
	step("reads", func() error {
		qs, err := runReads(ctx, s, meta, querySizes{history: c.history, lookups: c.lookups, budget: c.queryBudget})
		r.Queries = map[string]*queryResult{}
		for _, q := range qs {
			r.Queries[q.Name] = q
		}
		return err
	})
	step("ingest", func() error {
		x, err := runIngest(ctx, s, ingestEvs, c.publishers, c.ingestMax)
		if x != nil {
			logf("%s: ingest: %.0f events/s, OK p50 %s p99 %s, refused %d %s", s.name, x.Rate, fmtDur(x.P50), fmtDur(x.P99), x.Rejected, x.Reason)
		}
		r.Ingest = x
		return err
	})
	step("burst", func() error {
		x, err := runBurst(ctx, s, burstEvs, c.burstConns, c.burstWait)
		if x != nil {
			logf("%s: burst: last OK after %s, missing %d, refused %d %s, RSS before %d MB, peak after %d MB", s.name, fmtDur(x.TimeToLast), x.Missing, x.Rejected, x.Reason, x.RSSBefore/1024, x.HWMAfter/1024)
		}
		r.Burst = x
		return err
	})
	step("fanout", func() error {
		x, err := runFanout(ctx, s, meta.Channels[0], fanEvs, c.fanoutSubs, c.fanoutSpacing)
		if x != nil {
			logf("%s: fan-out: p50 %s p99 %s missed %d refused %d", s.name, fmtDur(x.P50), fmtDur(x.P99), x.Missed, x.Rejected)
		}
		r.Fanout = x
		return err
	})
	step("idle", func() error {
		x, err := runIdle(ctx, s, meta.Channels[0], c.idleConns)
		if x != nil {
			logf("%s: idle: RSS %d -> %d MB, %.1f KB/conn", s.name, x.RSSBefore/1024, x.RSSAfter/1024, x.KBPerConn)
		}
		r.Idle = x
		return err
	})
	r.RSSEnd, r.HWMEnd = procMem(s.pid())
	if err := s.stop(); err != nil {
		r.fail("%v", err)
	}
}
