package test

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// TestSlowConsumerBinaryRSS runs the real binary with a subscriber that sends a
// REQ and then stops reading, while two publishers push ~4,000 events of ~8 KB
// and a third client measures publish-to-OK latency. The hub must drop the slow
// subscriber, keep its peak RSS bounded (the slow reader's backlog is capped, not
// buffered), and keep answering everyone else promptly.
func TestSlowConsumerBinaryRSS(t *testing.T) {
	const (
		publishers   = 2
		perPublisher = 2000
		contentBytes = 8000
		window       = 16        // EVENTs in flight per publisher
		maxHWM       = 150 << 20 // bytes; a correctness bound, not a benchmark
		// Latency bounds that a hub held up by the slow reader would break (it
		// is cut off after 1 s to 10 s), with room for a loaded machine's fsync
		// stalls: the median stays low, no tail reaches a cutoff's length.
		maxP50 = 250 * time.Millisecond
		maxP99 = 2 * time.Second
		budget = 15 * time.Second // the whole ingest must finish in this
	)
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	pid := p.cmd.Process.Pid
	baseline := procStatusKB(t, pid, "VmRSS")

	dial := func(what string) *websocket.Conn {
		ws, _, err := websocket.DefaultDialer.Dial(p.URL, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Cleanup(func() { ws.Close() })
		if !answerAuth(ws, admin, p.URL) {
			t.Fatalf("%s: NIP-42 AUTH as the admin failed", what)
		}
		return ws
	}

	// The slow consumer subscribes to everything the publishers send, then stops reading.
	slow := dial("slow consumer")
	if err := slow.WriteJSON([]any{"REQ", "all", nostr.Filter{Kinds: []int{1}}}); err != nil {
		t.Fatal(err)
	}

	// The hub's peak resident set, sampled while the test runs (VmHWM is checked at the end too).
	var peakRSS atomic.Int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb := procStatusKB(nil, pid, "VmRSS"); kb*1024 > peakRSS.Load() {
				peakRSS.Store(kb * 1024)
			}
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
		}
	}()

	type load struct {
		ws   *websocket.Conn
		ids  []string
		msgs [][]byte
	}
	loads := make([]load, publishers)
	for w := range loads {
		ids, msgs, err := signedLoad(admin, w, perPublisher, contentBytes)
		if err != nil {
			t.Fatal(err)
		}
		loads[w] = load{dial(fmt.Sprintf("publisher %d", w)), ids, msgs}
	}

	deadline := time.Now().Add(budget)
	start := time.Now()
	var wg sync.WaitGroup
	var acked, refused atomic.Int64
	errs := make(chan error, publishers+1)
	for w, l := range loads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- publishPipelined(l.ws, w, l.ids, l.msgs, window, deadline, &acked, &refused)
		}()
	}
	publishing := make(chan struct{})
	go func() { wg.Wait(); close(publishing) }()

	// The latency probe publishes one small event at a time, for as long as the
	// publishers run (and at least 100 times).
	probe := dial("latency probe")
	var lat []time.Duration
probing:
	for i := 0; ; i++ {
		select {
		case <-publishing:
			if len(lat) >= 100 {
				break probing
			}
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ingest did not finish within %s (%d of %d events acknowledged)", budget, acked.Load(), publishers*perPublisher)
		}
		ev := admin.sign(t, 1, fmt.Sprintf("probe %d", i), nostr.Tag{"t", "probe"})
		b, _ := json.Marshal([]any{"EVENT", ev})
		sent := time.Now()
		if err := probe.WriteMessage(websocket.TextMessage, b); err != nil {
			t.Fatalf("probe write: %v", err)
		}
		if ok, reason, err := readOK(probe, ev.ID, 5*time.Second); err != nil || !ok {
			t.Fatalf("probe %d: ok=%v %q %v", i, ok, reason, err)
		}
		lat = append(lat, time.Since(sent))
		time.Sleep(5 * time.Millisecond)
	}
	ingest := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := acked.Load(); n != publishers*perPublisher {
		t.Fatalf("%d of %d events acknowledged (%d refused)", n, publishers*perPublisher, refused.Load())
	}

	// The hub says it dropped the slow consumer...
	for !strings.Contains(p.logs(), "dropping slow consumer") {
		if time.Now().After(deadline.Add(2 * time.Second)) {
			t.Fatalf("no \"dropping slow consumer\" in the hub's log:\n%s", p.logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// ...and when it reads again, it gets what was already in flight, then the socket closes.
	got, closeErr := drain(slow, 5*time.Second)
	if closeErr == nil {
		t.Fatalf("the slow consumer's connection is still open after reading %d events", got)
	}
	if got >= publishers*perPublisher {
		t.Fatalf("the slow consumer received all %d events; it was never cut off", got)
	}

	close(stopSampling)
	<-sampled
	hwm := procStatusKB(t, pid, "VmHWM") * 1024
	slices.Sort(lat)
	p50, p99 := lat[len(lat)/2], lat[(len(lat)*99+99)/100-1]
	t.Logf("ingest: %d events of %d bytes in %s (%.0f events/s); slow consumer got %d events, then %v",
		publishers*perPublisher, contentBytes, ingest.Round(time.Millisecond), float64(publishers*perPublisher)/ingest.Seconds(), got, closeErr)
	t.Logf("hub RSS: baseline %.1f MB, sampled peak %.1f MB, VmHWM %.1f MB", float64(baseline)/1024, float64(peakRSS.Load())/(1<<20), float64(hwm)/(1<<20))
	t.Logf("probe publish→OK over %d samples: p50 %s, p99 %s, max %s", len(lat), p50.Round(time.Microsecond), p99.Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
	if hwm > maxHWM {
		t.Errorf("hub VmHWM %.1f MB exceeds %d MB", float64(hwm)/(1<<20), maxHWM>>20)
	}
	if p50 > maxP50 {
		t.Errorf("publish→OK p50 %s exceeds %s", p50, maxP50)
	}
	if p99 > maxP99 {
		t.Errorf("publish→OK p99 %s exceeds %s", p99, maxP99)
	}
}

// signedLoad signs n kind 1 events with about size bytes of content each and
// renders their EVENT messages, so the publishers spend no CPU on it while the
// hub is measured.
func signedLoad(k key, w, n, size int) (ids []string, msgs [][]byte, err error) {
	rng := rand.New(rand.NewSource(int64(w) + 1))
	raw := make([]byte, size/2)
	for i := 0; i < n; i++ {
		rng.Read(raw)
		ev := &nostr.Event{Kind: 1, CreatedAt: nostr.Now(), Content: hex.EncodeToString(raw), Tags: nostr.Tags{{"t", "load"}}}
		if err := ev.Sign(k.sk); err != nil {
			return nil, nil, err
		}
		b, _ := json.Marshal([]any{"EVENT", ev})
		ids = append(ids, ev.ID)
		msgs = append(msgs, b)
	}
	return ids, msgs, nil
}

// publishPipelined sends msgs with up to window awaiting their OK, and counts
// the answers.
func publishPipelined(ws *websocket.Conn, w int, ids []string, msgs [][]byte, window int, deadline time.Time, acked, refused *atomic.Int64) error {
	pending := make(map[string]bool, window)
	ws.SetReadDeadline(deadline)
	sent := 0
	for sent < len(msgs) || len(pending) > 0 {
		for sent < len(msgs) && len(pending) < window {
			if err := ws.WriteMessage(websocket.TextMessage, msgs[sent]); err != nil {
				return fmt.Errorf("publisher %d: write: %w", w, err)
			}
			pending[ids[sent]] = true
			sent++
		}
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return fmt.Errorf("publisher %d: %d sent, %d unanswered: %w", w, sent, len(pending), err)
		}
		var m []json.RawMessage
		if json.Unmarshal(msg, &m) != nil || len(m) < 4 || str(m[0]) != "OK" || !pending[str(m[1])] {
			continue
		}
		delete(pending, str(m[1]))
		if string(m[2]) == "true" {
			acked.Add(1)
		} else {
			refused.Add(1)
			return fmt.Errorf("publisher %d: event refused: %s", w, str(m[3]))
		}
	}
	return nil
}

// readOK reads until the OK for id arrives.
func readOK(ws *websocket.Conn, id string, d time.Duration) (bool, string, error) {
	ws.SetReadDeadline(time.Now().Add(d))
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return false, "", err
		}
		var m []json.RawMessage
		if json.Unmarshal(msg, &m) == nil && len(m) >= 4 && str(m[0]) == "OK" && str(m[1]) == id {
			return string(m[2]) == "true", str(m[3]), nil
		}
	}
}

// drain reads EVENTs until the connection fails or d passes without a message.
func drain(ws *websocket.Conn, d time.Duration) (events int, err error) {
	for {
		ws.SetReadDeadline(time.Now().Add(d))
		_, msg, err := ws.ReadMessage()
		if err != nil {
			if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
				return events, nil
			}
			return events, err
		}
		if strings.HasPrefix(string(msg), `["EVENT"`) {
			events++
		}
	}
}

// procStatusKB reads a kB field (VmRSS, VmHWM) of /proc/PID/status.
func procStatusKB(t testing.TB, pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		if t != nil {
			t.Skipf("no /proc to read the hub's memory from: %v", err)
		}
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
