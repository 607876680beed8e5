package test

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// startProcFDs runs hive serve with at most fds open files, as a hub
// started under a small `ulimit -n` would.
func startProcFDs(t *testing.T, fds int, args ...string) *hubProc {
	t.Helper()
	addr := freeAddr(t)
	all := append([]string{"-c", `ulimit -n "$0" && exec "$@"`, strconv.Itoa(fds), binary(t), "serve", "--data", t.TempDir(), "--addr", addr}, args...)
	p := &hubProc{logged: startLogged(t, exec.Command("sh", all...), "hive hub serving", 20*time.Second), addr: addr, URL: "ws://" + addr}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	return p
}

// openFDs counts the process's open file descriptors.
func openFDs(pid int) int {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// halfOpen holds up to n connections from src to addr, each sending the
// start of a websocket upgrade request and never finishing it, re-opening
// any the hub closes, until stop is closed or dials connections were opened.
func halfOpen(addr, src string, n int, dials int64, stop <-chan struct{}) *atomic.Int64 {
	req := []byte("GET / HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n")
	opened, _ := holdConns(addr, src, n, dials, req, stop)
	return opened
}

// holdConns holds up to n connections from src to addr, each sending
// payload (nothing if nil) and never more, re-opening any the hub closes
// (after 10 ms), until stop is closed or dials connections were opened. It
// counts the connections opened and those open at the moment.
func holdConns(addr, src string, n int, dials int64, payload []byte, stop <-chan struct{}) (opened, open *atomic.Int64) {
	opened, open = &atomic.Int64{}, &atomic.Int64{}
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 2 * time.Second}
	for i := 0; i < n; i++ {
		go func() {
			buf := make([]byte, 512)
			for opened.Add(1) <= dials {
				c, err := d.Dial("tcp", addr)
				if err == nil {
					open.Add(1)
					if payload != nil {
						c.Write(payload)
					}
					go func() { <-stop; c.Close() }()
					c.Read(buf) // until the hub closes it (or stop does)
					c.Close()
					open.Add(-1)
				}
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
	}
	return opened, open
}

// TestHalfOpenUpgradesFromOneAddress: one address holds 1,500 half-open
// websocket upgrade requests (re-opening each one the hub closes, at most
// 6,000 in all) against a hub limited to 1,024 open files; a member's
// AUTH + publish + read from another address must stay fast, and the hub
// must hold only its per-address share of the attacker's connections.
// Before the cap the attacker took every file descriptor the hub had and
// the member's rounds took seconds or failed.
func TestHalfOpenUpgradesFromOneAddress(t *testing.T) {
	admin := newKey(t)
	p := startProcFDs(t, 1024, "--admin", admin.pk)
	pid := p.cmd.Process.Pid
	base := openFDs(pid)
	stop := make(chan struct{})
	opened := halfOpen(p.addr, "127.0.0.2", 1500, 6000, stop)
	peak, sampled := sampleMax(func() int64 { return int64(openFDs(pid)) }, stop)
	// bare sleep: a load test; the attacker fills what it can for a while before the rounds are timed
	time.Sleep(1500 * time.Millisecond)
	rounds, failures := memberRounds(p.URL, admin, 8)
	close(stop)
	<-sampled
	t.Logf("attacker 127.0.0.2 opened %d half-open upgrade requests (1,500 at once); hub open files: %d before, %d at the peak (limit 1,024); member AUTH+publish+read: %d rounds %v, %d failed",
		min(opened.Load(), 6000), base, peak.Load(), len(rounds), rounds, len(failures))
	for _, f := range failures {
		t.Error("member round:", f)
	}
	if len(rounds) > 0 && rounds[len(rounds)/2] > time.Second {
		t.Errorf("member rounds took %s at the median, want under 1 s", rounds[len(rounds)/2])
	}
	if limit := int64(base) + 64 + 100; peak.Load() > limit {
		t.Errorf("the hub held %d open files under the attack, want at most %d (its own, 64 pending from the attacker's address, the member's)", peak.Load(), limit)
	}
}
