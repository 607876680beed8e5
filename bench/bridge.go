package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// `bench bridge` runs hive's bridge benchmarks (test/bridge_bench_test.go: the real hub in
// process, the real `hive bridge` binary, the scripted ACP agent) a few times and prints one
// Markdown table with the machine's load average beside every figure. The benchmarks are hive's
// own Go benchmarks, compiled once from -hive-src and run as they are; this only repeats them,
// records the load and summarises.

type bridgeConfig struct {
	runs, mentions, turns int
	settle                time.Duration
	hiveSrc               string
	writeReadme           bool
	readme                string
}

// bridgeRun is one run of both benchmarks.
type bridgeRun struct {
	loadBefore, loadAfter string  // /proc/loadavg's three figures
	othersCPU             float64 // other processes' share of a core before the run
	mention, turns        map[string]float64
}

const (
	bridgeBegin = "<!-- BEGIN BRIDGE RESULTS (written by `make bench-bridge`) -->"
	bridgeEnd   = "<!-- END BRIDGE RESULTS -->"
)

func runBridge(args []string) error {
	var c bridgeConfig
	fs := flag.NewFlagSet("bridge", flag.ExitOnError)
	fs.IntVar(&c.runs, "runs", 3, "runs of both benchmarks")
	fs.IntVar(&c.mentions, "mentions", 300, "mentions per run of BenchmarkBridgeMentionToPrompt (one at a time)")
	fs.IntVar(&c.turns, "turns", 1000, "mentions per run of BenchmarkBridgeTurns32 (sent at once)")
	fs.DurationVar(&c.settle, "settle", 30*time.Second, "before each run, wait at most this long for other processes to use < 20% of a core (0: do not wait)")
	fs.StringVar(&c.hiveSrc, "hive-src", "..", "hive's main module (its test/ holds the benchmarks)")
	fs.BoolVar(&c.writeReadme, "write-readme", false, "rewrite the bridge results section of -readme")
	fs.StringVar(&c.readme, "readme", "README.md", "README whose bridge results section -write-readme rewrites")
	fs.Parse(args)

	testBin, err := buildBridgeTests(c.hiveSrc)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(testBin))
	var runs []bridgeRun
	for i := 0; i < c.runs; i++ {
		var r bridgeRun
		r.othersCPU = -1
		if c.settle > 0 {
			r.othersCPU = waitQuiet(func() time.Duration { return 0 }, c.settle)
		}
		r.loadBefore = loadAvg()
		logf("run %d/%d: %d mentions one at a time (load average %s)", i+1, c.runs, c.mentions, r.loadBefore)
		if r.mention, err = runGoBench(testBin, c.hiveSrc, "BridgeMentionToPrompt", c.mentions); err != nil {
			return err
		}
		logf("run %d/%d: %d mentions to 32 agents", i+1, c.runs, c.turns)
		if r.turns, err = runGoBench(testBin, c.hiveSrc, "BridgeTurns32", c.turns); err != nil {
			return err
		}
		r.loadAfter = loadAvg()
		runs = append(runs, r)
	}
	out := bridgeReport(&c, runs)
	fmt.Print(out)
	if c.writeReadme {
		return writeSection(c.readme, bridgeBegin, bridgeEnd, out)
	}
	return nil
}

// buildBridgeTests compiles hive's test package once.
func buildBridgeTests(src string) (string, error) {
	dir, err := os.MkdirTemp("", "hive-bridge-bench-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "test.bin")
	logf("compiling hive's test package (%s/test)", src)
	cmd := exec.Command("go", "test", "-tags", "libsecp256k1,sqlite_fts5", "-c", "-o", bin, "./test/")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go test -c ./test/: %v\n%s", err, out)
	}
	return bin, nil
}

// runGoBench runs one benchmark of the compiled test package for n iterations and returns
// its metrics by unit ("p99-ms", "turns/s", ...).
func runGoBench(bin, src, name string, n int) (map[string]float64, error) {
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", "^Benchmark"+name+"$", "-test.benchtime", fmt.Sprintf("%dx", n), "-test.timeout", "15m")
	cmd.Dir = filepath.Join(src, "test") // the benchmarks build ../cmd/hive and ./acpagent
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("Benchmark%s: %v\n%s", name, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark"+name) {
			continue
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err == nil {
				m[f[i+1]] = v
			}
		}
		return m, nil
	}
	return nil, fmt.Errorf("Benchmark%s printed no result:\n%s", name, out)
}

func bridgeReport(c *bridgeConfig, runs []bridgeRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run of %s: %s, %d cores, %s; hive built from %s. `make bench-bridge` (%d runs; %d mentions one at a time, then %d mentions to 32 agents, per run). Load average = /proc/loadavg (1, 5, 15 min) before and after each run; others' CPU = what other processes used, in cores, just before it.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), cpuModel(), runtime.NumCPU(), runtime.Version(), hiveRevision(c.hiveSrc), c.runs, c.mentions, c.turns)
	b.WriteString("| run | load average before → after | others' CPU | stored → prompt handled p50 / p99 | stored → stdin read p50 / p99 | 32 agents: turns/s | mentions/s | mentions/turn |\n")
	b.WriteString("|--:|---|--:|--:|--:|--:|--:|--:|\n")
	col := func(m map[string]float64, unit string) float64 { return m[unit] }
	for i, r := range runs {
		others := "not measured"
		if r.othersCPU >= 0 {
			others = fmt.Sprintf("%.2f", r.othersCPU)
		}
		fmt.Fprintf(&b, "| %d | %s → %s | %s | %.2f / %.2f ms | %.2f / %.2f ms | %.1f | %.0f | %.1f |\n", i+1, r.loadBefore, r.loadAfter, others,
			col(r.mention, "stored-p50-ms"), col(r.mention, "stored-p99-ms"), col(r.mention, "stored-read-p50-ms"), col(r.mention, "stored-read-p99-ms"),
			col(r.turns, "turns/s"), col(r.turns, "mentions/s"), col(r.turns, "mentions/turn"))
	}
	med := func(pick func(bridgeRun) float64) float64 {
		var v []float64
		for _, r := range runs {
			v = append(v, pick(r))
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	p99 := med(func(r bridgeRun) float64 { return r.mention["stored-p99-ms"] })
	verdict := "met"
	if p99 >= 5 {
		verdict = "missed"
	}
	fmt.Fprintf(&b, "| median | | | %.2f / **%.2f** ms | %.2f / %.2f ms | %.1f | %.0f | %.1f |\n\n",
		med(func(r bridgeRun) float64 { return r.mention["stored-p50-ms"] }), p99,
		med(func(r bridgeRun) float64 { return r.mention["stored-read-p50-ms"] }), med(func(r bridgeRun) float64 { return r.mention["stored-read-p99-ms"] }),
		med(func(r bridgeRun) float64 { return r.turns["turns/s"] }), med(func(r bridgeRun) float64 { return r.turns["mentions/s"] }),
		med(func(r bridgeRun) float64 { return r.turns["mentions/turn"] }))
	fmt.Fprintf(&b, "Target: stored → prompt p99 < 5 ms on loopback: **%s** in this run (median of the runs' p99, measured to the agent's Prompt handler).\n", verdict)
	return b.String()
}
