package agentbridge

import (
	"strconv"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
)

// The bridge's own status events fit the hub's bound on their expiration,
// and are renewed before they expire.
func TestStatusExpirationWithinTheHubsBound(t *testing.T) {
	b := &statusBoard{}
	ev := b.statusEvent(client.AgentIdle)
	if ev == nil {
		t.Fatal("no status event")
	}
	exp, err := strconv.ParseInt(ev.Tags.GetFirst([]string{"expiration"}).Value(), 10, 64)
	if err != nil {
		t.Fatalf("expiration tag: %v (%v)", err, ev.Tags)
	}
	life := exp - int64(ev.CreatedAt)
	if life > kinds.AgentStatusMaxLifetime {
		t.Errorf("the bridge's status expires %d s after its created_at, past the hub's bound of %d s", life, kinds.AgentStatusMaxLifetime)
	}
	if time.Duration(life)*time.Second <= statusEvery {
		t.Errorf("the status expires after %d s but is renewed only every %s", life, statusEvery)
	}
}
