package relay

import (
	"fmt"
	"testing"

	"github.com/ainb/hive/spec"
)

// spec/protocol.md states the defaults the code applies.
func TestProtocolSpecDefaults(t *testing.T) {
	var c Config
	c.defaults()
	want := []string{
		fmt.Sprintf("| `max_message_length` | %d KiB |", c.MaxMessageBytes>>10),
		fmt.Sprintf("| `max_subscriptions` | %d per connection |", c.MaxSubscriptions),
		fmt.Sprintf("| `max_filters` | %d per REQ or COUNT |", c.MaxFilters),
		fmt.Sprintf("| `max_filter_values` | %s ids", commas(c.MaxFilterValues)),
		fmt.Sprintf("| `max_subid_length` | %d |", c.MaxSubIDLength),
		fmt.Sprintf("| `max_event_tags`, `max_content_length` | %s, %d KiB |", commas(c.MaxEventTags), c.MaxContentBytes>>10),
		fmt.Sprintf("| `created_at_upper_limit` | %d s ahead |", int(c.MaxFutureSkew.Seconds())),
		fmt.Sprintf("At most %d EVENTs per connection wait", c.MaxInflight),
		fmt.Sprintf("more than %d MiB pile up", c.MaxOutboundBytes>>20),
		fmt.Sprintf("within %d s is closed", int(c.AuthTimeout.Seconds())),
		fmt.Sprintf("| `max_unauth_message_length` | %d KiB |", c.MaxUnauthMessageBytes>>10),
		fmt.Sprintf("| `unauth_message_burst`, `unauth_messages_per_second` | %d messages, then %g per second |", c.UnauthBurst, c.UnauthRate),
		fmt.Sprintf("| `max_unauth_connections` | %s on the hub |", commas(c.MaxUnauthConns)),
		fmt.Sprintf("| `max_unauth_connections_per_ip` | %d per source address |", c.MaxUnauthPerAddr),
		fmt.Sprintf("| `auth_timeout` | %d s |", int(c.AuthTimeout.Seconds())),
		fmt.Sprintf("a pool of %d writer goroutines", writerGoroutines),
		fmt.Sprintf("read from the log %d events at a time", pageRows),
		fmt.Sprintf("has taken nothing for %d s, or once %d MiB are queued", int(stallWindow.Seconds()), hardCapX*c.MaxOutboundBytes>>20),
		fmt.Sprintf("takes nothing for %d s (the write timeout)", int(c.WriteTimeout.Seconds())),
	}
	spec.Says(t, "protocol.md", want...)
}

func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
