package test

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// memberLogins dials url n times from 127.0.0.1 and authenticates as k
// (wss with any certificate): the time of each login, sorted, and the
// failures.
func memberLogins(url string, k key, n int) (logins []time.Duration, failures []string) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	for i := 0; i < n; i++ {
		start := time.Now()
		ws, _, err := d.Dial(url, nil)
		if err == nil {
			if !answerAuth(ws, k, url) {
				err = fmt.Errorf("AUTH failed")
			}
			ws.Close()
		}
		if took := time.Since(start); err != nil {
			failures = append(failures, fmt.Sprintf("login %d after %s: %v", i, took.Round(time.Millisecond), err))
		} else {
			logins = append(logins, took)
		}
	}
	slices.Sort(logins)
	return logins, failures
}

// waitAtLeast waits until v reaches n (a flood in full swing), at most d.
func waitAtLeast(t *testing.T, what string, v *atomic.Int64, n int64, d time.Duration) {
	t.Helper()
	end := time.Now().Add(d)
	for v.Load() < n {
		if time.Now().After(end) {
			t.Fatalf("%s: %d after %s, want %d", what, v.Load(), d, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkLogins fails the test unless every login succeeded within 1 s.
func checkLogins(t *testing.T, during string, logins []time.Duration, failures []string) {
	t.Helper()
	t.Logf("member logins (dial + AUTH) from 127.0.0.1 during %s: %v, %d failed", during, logins, len(failures))
	for _, f := range failures {
		t.Error(f)
	}
	if len(logins) > 0 && logins[len(logins)-1] > time.Second {
		t.Errorf("a member's login took %s during %s, want every one within 1 s", logins[len(logins)-1].Round(time.Millisecond), during)
	}
}

// sources is 127.0.0.2, 127.0.0.3, ... : n loopback source addresses.
func sources(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("127.0.0.%d", 2+i))
	}
	return out
}

// TestLoginDuringStalledTLSHandshakes: 20 addresses each hold 60 TLS
// connections that never send a ClientHello (each address within the
// per-address cap of 64, 1,200 in all for 1,024 pending slots), re-opening
// each one the hub closes; a member's login must still take under 1 s.
// Before, the full pending pool closed every new connection, the
// member's too, for about 5 s (the header timeout).
func TestLoginDuringStalledTLSHandshakes(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--tls", "self-signed", "--admin", admin.pk)
	url := strings.Replace(p.URL, "ws://", "wss://", 1)
	open, _ := startFlooder(t, floodPlan{Addr: p.addr, Sources: sources(20), N: 60})
	waitAtLeast(t, "stalled handshakes open", open, 1100, 20*time.Second)
	logins, failures := memberLogins(url, admin, 6)
	checkLogins(t, "1,200 stalled TLS handshakes from 20 addresses", logins, failures)
}
