package relay

import (
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// Metrics receives what the relay counts; the hub's wiring implements it
// (Prometheus in cmd/hive). Set Relay.Metrics before serving; nil counts nothing.
// Methods are called from many goroutines and must not block.
type Metrics interface {
	// EventIn counts an EVENT received from a client.
	EventIn(kind int)
	// EventOut counts n events of a kind sent to subscribers (stored or live).
	EventOut(kind, n int)
	// OK records the answer to an EVENT: accepted or the refusal, and the
	// time from receipt to the OK being queued.
	OK(kind int, accepted bool, reason string, took time.Duration)
	// SlowConsumer counts a connection dropped for not reading.
	SlowConsumer()
	// Kicked counts connections closed by Kick (revocations, removals).
	Kicked(reason string, n int)
}

type noMetrics struct{}

func (noMetrics) EventIn(int)                         {}
func (noMetrics) EventOut(int, int)                   {}
func (noMetrics) OK(int, bool, string, time.Duration) {}
func (noMetrics) SlowConsumer()                       {}
func (noMetrics) Kicked(string, int)                  {}

func (r *Relay) metrics() Metrics {
	if r.Metrics == nil {
		return noMetrics{}
	}
	return r.Metrics
}

// okFor records the answer to ev and renders its OK message.
func (c *Conn) okFor(ev *nostr.Event, start time.Time, accepted bool, reason string) []byte {
	c.relay.metrics().OK(ev.Kind, accepted, reason, time.Since(start))
	return okMsg(ev.ID, accepted, reason)
}

// Subscriptions counts the open subscriptions of every connection.
func (r *Relay) Subscriptions() int {
	r.mu.Lock()
	conns := make([]*Conn, 0, len(r.conns))
	for c := range r.conns {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	n := 0
	for _, c := range conns {
		c.mu.Lock()
		n += len(c.subs)
		c.mu.Unlock()
	}
	return n
}
