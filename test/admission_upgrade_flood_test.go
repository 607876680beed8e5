package test

import (
	"slices"
	"testing"
	"time"
)

// TestLoginDuringUpgradeFloodFromOneAddress: 127.0.0.2 keeps 6,000
// connections with an unfinished websocket upgrade request, re-dialling
// each one the hub drops; a member's login from 127.0.0.1 must still take
// under 1 s. The flood runs in its own process (startFlooder): flooding
// from the test's own process, as this test first did, timed the test's Go
// scheduler (1.3-3.6 s logins against 2-260 ms measured from outside).
func TestLoginDuringUpgradeFloodFromOneAddress(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	req := []byte("GET / HTTP/1.1\r\nHost: " + p.addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n")
	_, dialled := startFlooder(t, floodPlan{Addr: p.addr, Sources: []string{"127.0.0.2"}, N: 6000, Payload: req})
	waitAtLeast(t, "upgrade requests dialled", dialled, 12000, 30*time.Second)
	// logins for at least 2 s, so the flood's rate over them is a fair one
	start, before := time.Now(), dialled.Load()
	var logins []time.Duration
	var failures []string
	for len(logins)+len(failures) < 6 || time.Since(start) < 2*time.Second {
		l, f := memberLogins(p.URL, admin, 1)
		logins, failures = append(logins, l...), append(failures, f...)
	}
	slices.Sort(logins)
	rate := float64(dialled.Load()-before) / time.Since(start).Seconds()
	t.Logf("127.0.0.2 dialled %.0f connections a second meanwhile", rate)
	if rate < 100 { // the flooder's own rate varies with the machine's load
		t.Fatalf("the flood stopped during the logins: %.0f dials a second", rate)
	}
	checkLogins(t, "6,000 half-open upgrade requests from one address", logins, failures)
}
