package test

import (
	"math"
	"testing"
	"time"
)

// TestLoginDuringUpgradeFloodFromOneAddress: 127.0.0.2 keeps 6,000
// connections with an unfinished websocket upgrade request, re-dialling
// each one the hub drops; a member's login from 127.0.0.1 must still take
// under 1 s. Before, it took 5.5 to 6.6 s.
func TestLoginDuringUpgradeFloodFromOneAddress(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	stop := make(chan struct{})
	defer close(stop)
	req := []byte("GET / HTTP/1.1\r\nHost: " + p.addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n")
	opened, _ := holdConns(p.addr, "127.0.0.2", 6000, math.MaxInt64, req, stop)
	waitAtLeast(t, "upgrade requests dialled", opened, 12000, 30*time.Second)
	start, before := time.Now(), opened.Load()
	logins, failures := memberLogins(p.URL, admin, 6)
	t.Logf("127.0.0.2 dialled %.0f connections a second meanwhile", float64(opened.Load()-before)/time.Since(start).Seconds())
	checkLogins(t, "6,000 half-open upgrade requests from one address", logins, failures)
}
