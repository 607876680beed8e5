// Command bench runs the same workloads against hive and against a peer relay (khatru over
// eventstore's sqlite3 backend) in one run and prints a Markdown table side by side.
//
//	go run -tags libsecp256k1,sqlite_fts5 . [-quick] [-write-readme]
//	go run -tags libsecp256k1,sqlite_fts5 . bridge [-runs 3] [-write-readme]   (hive bridge's benchmarks, see bridge.go)
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
	sendtailEvents int
	sendtailSpace  time.Duration
	idleConns      int
	targets        string
	workloads      string
	queries        string
	hiveSrc        string
	hiveBin        string
	hivePprof      string
	hiveStore      string // hive serve --store: a postgres:// log
	hiveInstances  int    // hive serve processes over hiveStore
	pgWaits        bool   // sample the PostgreSQL backends' activity during each workload
	dataDir        string
	keep           bool
	settle         time.Duration
	noCache        bool
	writeReadme    bool
	readme         string
	enabledTargets map[string]bool
	peer           string // khatru or strfry
	strfryBin      string
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
	if len(os.Args) > 1 && os.Args[1] == "workflows" {
		if err := runWorkflowsBench(os.Args[2:]); err != nil {
			logf("error: %v", err)
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
	flag.IntVar(&c.sendtailEvents, "sendtail-events", 500, "send → tail: messages published, each timed to its receipt by another connection's subscription")
	flag.DurationVar(&c.sendtailSpace, "sendtail-spacing", 10*time.Millisecond, "time between send → tail publishes")
	flag.IntVar(&c.idleConns, "idle-conns", 4000, "idle connections, each with one open REQ")
	flag.StringVar(&c.targets, "targets", "hive,peer", "servers to run")
	flag.StringVar(&c.peer, "peer", "khatru", "the peer relay: khatru (built into this program) or strfry (-strfry-bin)")
	flag.StringVar(&c.strfryBin, "strfry-bin", os.Getenv("STRFRY_BIN"), "strfry binary for -peer strfry (default $STRFRY_BIN)")
	flag.StringVar(&c.workloads, "workloads", strings.Join(workloadOrder, ","), "workloads to run (fanout-cross needs -hive-instances 2 or more)")
	flag.StringVar(&c.queries, "queries", "", "read queries to run, by name (history,#e,...; default all)")
	flag.StringVar(&c.hiveSrc, "hive-src", "..", "hive's main module (built with go build ./cmd/hive)")
	flag.StringVar(&c.hiveBin, "hive-bin", "", "use this hive binary instead of building one")
	flag.StringVar(&c.hivePprof, "hive-pprof", "", "pass --pprof ADDR to hive serve (the first instance)")
	flag.StringVar(&c.hiveStore, "hive-store", "", "run hive over this postgres:// log (hive serve/import --store; no database cache)")
	flag.IntVar(&c.hiveInstances, "hive-instances", 1, "hive serve instances over the -hive-store log, on loopback; the workloads spread their connections over them")
	flag.BoolVar(&c.pgWaits, "pg-waits", false, "log what the -hive-store server's backends do during each workload (pg_stat_activity every 10 ms)")
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
	if c.hiveInstances < 1 || (c.hiveInstances > 1 && c.hiveStore == "") {
		logf("error: -hive-instances %d: more than one instance needs a shared log (-hive-store postgres://...)", c.hiveInstances)
		os.Exit(2)
	}

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
	running []*target
)

func track(t *target) {
	liveMu.Lock()
	running = append(running, t)
	liveMu.Unlock()
}

func killAll() {
	liveMu.Lock()
	defer liveMu.Unlock()
	for _, t := range running {
		t.kill()
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
	// FanoutCross: publisher on the first instance, subscribers on the others
	FanoutCross *fanoutResult
	// SendTail is send → tail: one publisher, one subscriber on another connection
	SendTail *fanoutResult
	// ReadsGC is the garbage collector's part of the server's CPU during the read workloads
	ReadsGC *gcShare
	Idle    *idleResult
	RSSEnd  int64
	HWMEnd  int64
	Wall    time.Duration // time spent in workloads
	Others  time.Duration // CPU other processes of the machine used meanwhile
	// CPU is where the CPU time of each workload went, by workload name
	CPU map[string]cpuSplit
	// Load is the machine's load average (1, 5, 15 min) before the first and after the last workload
	Load [2]string
}

// cpuSplit is the CPU time one workload took, by process.
type cpuSplit struct {
	Wall     time.Duration
	Server   time.Duration // the server processes (every hive instance)
	DB       time.Duration // the shared PostgreSQL server, if any
	Client   time.Duration // the benchmark itself
	Stored   int64         // bytes the server processes caused to be written to storage (write_bytes)
	Written  int64         // bytes they passed to write-like calls, files and sockets (wchar)
	Others   time.Duration // every other process on the machine
	Activity map[string]float64
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
	// fanout-cross publishes events of its own: the first fan-out's are stored by then
	crossEvs, err := liveEvents(meta, c.fanoutEvents, 0, 14)
	if err != nil {
		return nil, err
	}
	sendEvs, err := liveEvents(meta, c.sendtailEvents, 0, 15)
	if err != nil {
		return nil, err
	}
	live := liveSets{ingest: ingestEvs, burst: burstEvs, fanout: fanEvs, cross: crossEvs, sendtail: sendEvs}

	res := &results{stored: c.stored}
	cacheDir := ""
	if !c.noCache {
		cacheDir = filepath.Join(dataDir, "cache")
	}
	peer, waitPeerImport, err := newPeerTarget(ctx, c, runDir, cacheDir, corpus, meta, res)
	if err != nil {
		return nil, err
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
			hiveCache := cacheDir
			if c.hiveStore != "" {
				hiveCache = "" // the database lives in PostgreSQL, not in a directory to copy
			}
			t, err := newHiveTarget(bin, dir, c.hivePprof, c.hiveStore, hiveCache, c.stored, c.hiveInstances)
			if err != nil {
				return nil, err
			}
			if c.hiveStore != "" {
				if t.db, err = findPG(c.hiveStore); err != nil {
					logf("hive: the PostgreSQL server's CPU is not measured: %v", err)
				}
			}
			runServer(ctx, c, t, res.hive, corpus, meta, live, func() { waitPeerImport() })
		}
	}
	if peer != nil {
		if err := waitPeerImport(); err != nil {
			res.peer.fail("peer import: %v", err)
		} else {
			runServer(ctx, c, peer, res.peer, corpus, meta, live, func() { waitPeerImport() })
		}
	}
	return res, nil
}
