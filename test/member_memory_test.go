package test

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// sampleMax samples f every 20 ms until stop is closed and keeps the
// highest value; read it after done is closed.
func sampleMax(f func() int64, stop <-chan struct{}) (peak *atomic.Int64, done <-chan struct{}) {
	peak = &atomic.Int64{}
	d := make(chan struct{})
	go func() {
		defer close(d)
		for {
			if v := f(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return peak, d
}

// rssOf reads pid's VmRSS in bytes.
func rssOf(pid int) func() int64 {
	return func() int64 { return procStatusKB(nil, pid, "VmRSS") * 1024 }
}

// memberRounds runs n memberRounds as k and returns their times, sorted,
// and the failures.
func memberRounds(url string, k key, n int) (rounds []time.Duration, failures []string) {
	for i := 0; i < n; i++ {
		took, err := memberRound(url, k, i)
		if err != nil {
			failures = append(failures, err.Error())
		} else {
			rounds = append(rounds, took)
		}
	}
	slices.Sort(rounds)
	return rounds, failures
}

// TestOneMemberReadersBounded: one member opens 48 connections (the hub
// allows 40 here), each with a REQ of 16 filters over 100 stored events of
// 120 KiB, and reads nothing.
// The hub's memory must stay bounded (per connection and per member) and
// another member's AUTH + publish + read must stay answered. Before the
// per-member bounds the hub's high-water reached 650-741 MB in the probe
// and other members' requests took 11 s or timed out.
func TestOneMemberReadersBounded(t *testing.T) {
	admin, mallory, bob := newKey(t), newKey(t), newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk, "--max-conns-per-member", "40")
	pid := p.cmd.Process.Pid
	adm := dialRaw(t, p.URL)
	if ok, msg := adm.auth(admin, p.URL); !ok {
		t.Fatal(msg)
	}
	for _, k := range []key{mallory, bob} {
		adm.must(admin.sign(t, 8000, "", nostr.Tag{"p", k.pk}))
	}
	big := strings.Repeat("x", 120<<10)
	for i := 0; i < 100; i++ {
		adm.must(admin.sign(t, 1, big[:len(big)-i], nostr.Tag{"t", "big"}))
	}
	before := procStatusKB(t, pid, "VmHWM") * 1024

	var filters []any
	for i := 0; i < 16; i++ {
		filters = append(filters, map[string]any{"kinds": []int{1}, "#t": []string{"big"}, "limit": 100 + i})
	}
	stop := make(chan struct{})
	peak, sampled := sampleMax(rssOf(pid), stop)
	refused := 0
	var reasons []string
	for i := 0; i < 48; i++ {
		r := dialRaw(t, p.URL)
		if ok, msg := r.auth(mallory, p.URL); !ok {
			refused++
			if !slices.Contains(reasons, msg) {
				reasons = append(reasons, msg)
			}
			continue
		}
		r.send(append([]any{"REQ", "big"}, filters...))
	}
	// Her agents count as her.
	agent := newKey(t)
	if ok, msg := dialRaw(t, p.URL).authWith(agent, p.URL, 0, attest(t, mallory, agent, time.Hour)); ok || !slices.Contains(reasons, msg) {
		t.Errorf("AUTH of mallory's agent with 40 of her connections open: ok=%v %q, want the refusal %q", ok, msg, reasons)
	}
	// bare sleep: a load test; the readers pile up for a while before the rounds are timed
	time.Sleep(time.Second)
	rounds, failures := memberRounds(p.URL, bob, 8)
	close(stop)
	<-sampled
	hwm := procStatusKB(t, pid, "VmHWM") * 1024
	mb := func(n int64) int64 { return n >> 20 }
	t.Logf("one member, 48 connections x 16 filters over 100 events of 120 KiB, reading nothing: %d AUTHs refused %q; hub VmHWM %d MB before, %d MB after (sampled peak %d MB); another member's AUTH+publish+read: %d rounds %v, %d failed",
		refused, reasons, mb(before), mb(hwm), mb(peak.Load()), len(rounds), rounds, len(failures))
	for _, f := range failures {
		t.Error("other member's round:", f)
	}
	if len(rounds) > 0 && rounds[len(rounds)/2] > 2*time.Second {
		t.Errorf("the other member's rounds took %s at the median, want under 2 s", rounds[len(rounds)/2])
	}
	const over = "rate-limited: 40 connections of this member (its agents' and devices' included) are open (max_connections_per_member); close some first"
	if refused != 8 || len(reasons) != 1 || reasons[0] != over {
		t.Errorf("%d of 48 AUTHs refused with %q, want 8 refused with %q", refused, reasons, over)
	}
	if hwm > 300<<20 {
		t.Errorf("hub VmHWM %d MB under one member's readers, want under 300 MB", mb(hwm))
	}
}
