package endpoint

import (
	"fmt"
	"testing"

	"github.com/ainb/hive/spec"
)

// spec/pairing.md states the limits the endpoint applies.
func TestSpecStatesLimits(t *testing.T) {
	l := Defaults()
	secs := func(d interface{ Seconds() float64 }) int { return int(d.Seconds()) }
	want := []string{
		fmt.Sprintf("| `max_connections` | %d on the endpoint |", l.MaxConns),
		fmt.Sprintf("| `max_connections_per_ip` | %d per source address |", l.MaxConnsPerIP),
		fmt.Sprintf("| `connection_lifetime` | %d s |", secs(l.ConnLifetime)),
		fmt.Sprintf("| `max_message_length` | %d bytes |", l.MaxFrame),
		fmt.Sprintf("| `rate_window` | %d s |", secs(l.RateWindow)),
		fmt.Sprintf("| `max_messages_per_window` | %d per connection |", l.RateFrames),
		fmt.Sprintf("| `max_events_per_window` | %d per connection |", l.RateEvents),
		fmt.Sprintf("| `max_events_per_connection` | %d (signature-checked events, AUTH included, ever) |", l.EventsPerConn),
		fmt.Sprintf("| `max_deliveries_per_p` | %d per recipient key |", l.DeliveriesPerP),
		fmt.Sprintf("| `created_at_window` | ±%d s |", secs(l.Freshness)),
		fmt.Sprintf("| `seen_ttl` | %d s |", secs(l.SeenTTL)),
		fmt.Sprintf("| `seen_capacity` | %d ids |", l.SeenCap),
		fmt.Sprintf("| `max_events_per_address` | %d delivered per source address per `seen_ttl`, sent or received |", l.AddrEvents),
		fmt.Sprintf("rate-limited: your address has used its %d pairing events for %d s", l.AddrEvents, secs(l.SeenTTL)),
		fmt.Sprintf("| `max_subid_length` | %d |", l.MaxSubIDLength),
		fmt.Sprintf("| `outbound_queue` | %d messages, then the connection is dropped |", l.OutboundQueue),
	}
	spec.Says(t, "pairing.md", want...)
}
