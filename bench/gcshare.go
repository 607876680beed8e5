package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The garbage collector's share of hive's CPU, from its Prometheus /metrics (hive serve
// --metrics): go_cpu_classes_gc_total_cpu_seconds_total is the runtime's count of the CPU its
// collector used (mark assists, background mark workers, pauses), updated at the end of each
// collection.

const gcCPUMetric = "go_cpu_classes_gc_total_cpu_seconds_total"

// gcShare is the CPU the garbage collector used during a workload, and all the CPU the server
// processes used meanwhile (from /proc).
type gcShare struct {
	GC, CPU time.Duration
}

// errNoMetrics: a server that serves no /metrics (the peer).
var errNoMetrics = errors.New("serves no /metrics")

// startGCShare reads the servers' GC CPU and CPU time now; the function it returns reads them
// again and returns the difference, or nil when a server serves no metrics or a read failed.
func (t *target) startGCShare() func() *gcShare {
	// hive serve accepts websockets a moment before its metrics listener is
	// up: give a just-started server a second.
	gc0, err := t.gcCPU()
	for tries := 0; err != nil && !errors.Is(err, errNoMetrics) && tries < 20; tries++ {
		time.Sleep(50 * time.Millisecond)
		gc0, err = t.gcCPU()
	}
	cpu0 := t.cpu()
	return func() *gcShare {
		gc1, err1 := t.gcCPU()
		cpu1 := t.cpu()
		if err = errors.Join(err, err1); err != nil {
			if !errors.Is(err, errNoMetrics) {
				logf("%s: garbage collection's CPU not measured: %v", t.name, err)
			}
			return nil
		}
		return &gcShare{GC: gc1 - gc0, CPU: cpu1 - cpu0}
	}
}

// gcCPU sums the GC CPU time over the servers.
func (t *target) gcCPU() (time.Duration, error) {
	var sum time.Duration
	for _, s := range t.servers {
		if s.metrics == "" {
			return 0, fmt.Errorf("%s %w", s.name, errNoMetrics)
		}
		v, err := scrapeMetric("http://"+s.metrics+"/metrics", gcCPUMetric)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", s.name, err)
		}
		sum += time.Duration(v * float64(time.Second))
	}
	return sum, nil
}

// scrapeMetric reads the value of an unlabelled metric from a Prometheus text page.
func scrapeMetric(url, name string) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s has no %s (a hive built before its Go collector exported the runtime's CPU classes?)", url, name)
}
