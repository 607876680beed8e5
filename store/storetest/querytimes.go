package storetest

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// queryTimes collects a query benchmark's latencies, marking those during
// which the garbage collector completed a cycle, and the CPU time each query
// took on its own thread, so the tail can be told apart from collection and
// from waiting for a core.
type queryTimes struct {
	all, quiet, cpu []time.Duration
	sample          []metrics.Sample
	faults          int64 // minor page faults of the thread (first touches of the mapped file)
}

// timeQueries runs q n times on one locked OS thread, timing each call.
func timeQueries(n int, q func(i int)) *queryTimes {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	lat := &queryTimes{}
	f0 := threadFaults()
	defer func() { lat.faults = threadFaults() - f0 }()
	for i := 0; i < n; i++ {
		t0, c0, gc0 := time.Now(), threadCPU(), lat.gcs()
		q(i)
		d, c := time.Since(t0), threadCPU()-c0
		lat.all, lat.cpu = append(lat.all, d), append(lat.cpu, c)
		if lat.gcs() == gc0 {
			lat.quiet = append(lat.quiet, d)
		}
	}
	return lat
}

// threadFaults is the number of minor page faults of the calling OS thread.
func threadFaults() int64 {
	var ru syscall.Rusage
	const rusageThread = 1
	syscall.Getrusage(rusageThread, &ru)
	return ru.Minflt
}

// threadCPU is the CPU time the calling OS thread used so far.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// gcs is the number of completed GC cycles so far.
func (q *queryTimes) gcs() uint64 {
	if q.sample == nil {
		q.sample = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	}
	metrics.Read(q.sample)
	return q.sample[0].Value.Uint64()
}

// report adds p50 and p99 in µs, the p99 of the queries no collection cycle
// ended during, and the p50 and p99 of the queries' own CPU time.
func (q *queryTimes) report(b *testing.B) {
	if len(q.all) < 100 {
		return // too few for a p99
	}
	b.ReportMetric(pct(q.all, 50), "p50-µs")
	b.ReportMetric(pct(q.all, 99), "p99-µs")
	if len(q.quiet) >= 100 {
		b.ReportMetric(pct(q.quiet, 99), "p99-nogc-µs")
	}
	b.ReportMetric(float64(q.faults)/float64(len(q.all)), "faults/op")
	b.ReportMetric(pct(q.cpu, 50), "cpu-p50-µs")
	b.ReportMetric(pct(q.cpu, 99), "cpu-p99-µs")
}

func pct(ds []time.Duration, p int) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[(len(s)-1)*p/100].Nanoseconds()) / 1e3
}
