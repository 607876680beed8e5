package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/relay"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// hubMetrics implements relay.Metrics and the store's commit hook with
// Prometheus collectors in a registry of its own.
type hubMetrics struct {
	reg        *prometheus.Registry
	eventsIn   *prometheus.CounterVec
	eventsOut  *prometheus.CounterVec
	okLatency  *prometheus.HistogramVec
	rejections *prometheus.CounterVec
	batch      prometheus.Histogram
	commit     prometheus.Histogram
	slow       prometheus.Counter
	kicks      *prometheus.CounterVec
}

func newHubMetrics() *hubMetrics {
	m := &hubMetrics{
		reg: prometheus.NewRegistry(),
		eventsIn: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hive_events_in_total",
			Help: "EVENT messages received, by kind and partition."}, []string{"kind", "partition"}),
		eventsOut: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hive_events_out_total",
			Help: "Events sent to subscribers (stored and live), by kind and partition."}, []string{"kind", "partition"}),
		okLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hive_ok_latency_seconds",
			Help:    "Time from an EVENT's receipt to its OK, by outcome.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2.5, 12)}, []string{"accepted"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hive_rejections_total",
			Help: "EVENTs refused, by the reason's NIP-01 prefix."}, []string{"reason"}),
		batch: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "hive_writer_batch_size",
			Help: "Writes per committed transaction.", Buckets: prometheus.ExponentialBuckets(1, 2, 11)}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "hive_commit_seconds",
			Help: "Commit (fsync) time of a write transaction.", Buckets: prometheus.ExponentialBuckets(0.00005, 2.5, 12)}),
		slow: prometheus.NewCounter(prometheus.CounterOpts{Name: "hive_slow_consumer_drops_total",
			Help: "Connections dropped for not reading fast enough."}),
		kicks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hive_kicked_connections_total",
			Help: "Connections closed by the hub (revocations, removals), by the reason's prefix."}, []string{"reason"}),
	}
	m.reg.MustRegister(m.eventsIn, m.eventsOut, m.okLatency, m.rejections, m.batch, m.commit, m.slow, m.kicks,
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(gcCPUClasses)), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// gcCPUClasses adds the runtime's CPU accounting to the Go collector's defaults:
// go_cpu_classes_gc_total_cpu_seconds_total against go_cpu_classes_total_cpu_seconds_total
// and go_cpu_classes_idle_cpu_seconds_total is the share of its CPU the garbage collector takes.
var gcCPUClasses = collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/cpu/classes/(gc/total|idle|total):cpu-seconds$`)}

// watch adds the gauges read from the relay at scrape time.
func (m *hubMetrics) watch(rl *relay.Relay) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hive_connections", Help: "Open websocket connections."},
			func() float64 { return float64(rl.Connections()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hive_subscriptions", Help: "Open subscriptions."},
			func() float64 { return float64(rl.Subscriptions()) }),
	)
}

// kindLabels bounds label values to the registered kinds.
func kindLabels(kind int) (string, string) {
	if k, ok := kinds.Lookup(kind); ok {
		return strconv.Itoa(kind), string(k.Partition)
	}
	return "other", string(kinds.Classify(kind).Partition)
}

// prefixLabel is a message's NIP-01 prefix ("restricted"), or "other".
func prefixLabel(msg string) string {
	p, _, ok := strings.Cut(msg, ":")
	if !ok || len(p) > 20 || strings.ContainsAny(p, " \t") {
		return "other"
	}
	return p
}

func (m *hubMetrics) EventIn(kind int) { m.eventsIn.WithLabelValues(kindLabels(kind)).Inc() }
func (m *hubMetrics) EventOut(kind, n int) {
	if n > 0 {
		m.eventsOut.WithLabelValues(kindLabels(kind)).Add(float64(n))
	}
}
func (m *hubMetrics) SlowConsumer() { m.slow.Inc() }
func (m *hubMetrics) Kicked(reason string, n int) {
	m.kicks.WithLabelValues(prefixLabel(reason)).Add(float64(n))
}

func (m *hubMetrics) OK(kind int, accepted bool, reason string, took time.Duration) {
	m.okLatency.WithLabelValues(strconv.FormatBool(accepted)).Observe(took.Seconds())
	if !accepted {
		m.rejections.WithLabelValues(prefixLabel(reason)).Inc()
	}
}

// commitHook is the store's OnCommit.
func (m *hubMetrics) commitHook(writes int, d time.Duration) {
	m.batch.Observe(float64(writes))
	m.commit.Observe(d.Seconds())
}

// handler serves the registry as Prometheus text.
func (m *hubMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// listen serves /metrics on addr; it returns a stop function and the address.
func (m *hubMetrics) listen(addr string, log *slog.Logger) (func(), string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", exitWith(exitConflict, fmt.Errorf("--metrics %s: %w", addr, err))
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	log.Info("metrics serving", "addr", ln.Addr().String())
	return func() { srv.Close() }, ln.Addr().String(), nil
}
