package relay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// What an idle connection with one open REQ costs the hub, measured in a
// hub process of its own (this test binary, re-executed), so the clients'
// memory is not counted:
//
//	go test -tags libsecp256k1,sqlite_fts5 -run '^$' -bench IdleConns -benchtime 1x ./relay/
//
// It reports, per connection, the growth of the hub's RSS (as bench's idle
// workload measures it), of its Go heap in use and of its goroutine stacks.

// benchServeEnv, when set to a directory, makes the test binary serve a hub
// over a SQLite file there instead of running tests (see serveBenchHub).
const benchServeEnv = "RELAY_BENCH_SERVE"

// benchHeapEnv names a file for BenchmarkIdleConns to write the hub's heap
// profile to, with every connection open.
const benchHeapEnv = "RELAY_BENCH_HEAP"

func TestMain(m *testing.M) {
	if dir := os.Getenv(benchServeEnv); dir != "" {
		os.Exit(serveBenchHub(dir, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// hubStats is what the hub process reports on "stats".
type hubStats struct {
	RSS        int64  // VmRSS, bytes
	HeapInuse  uint64 // runtime.MemStats
	StackInuse uint64
	HeapLive   uint64 // HeapAlloc after a GC
	Goroutines int
}

// serveBenchHub serves a hub, writes its URL as the first line of out, then
// answers each line of in: "stats" with a hubStats line, "heap FILE" by
// writing a heap profile there. It returns when in ends.
func serveBenchHub(dir string, in io.Reader, out io.Writer) int {
	if os.Getenv(benchHeapEnv) != "" {
		runtime.MemProfileRate = 1 // every allocation, for an exact profile
	}
	_, url, stop, err := serveHub(dir, Config{MaxConnsPerMember: 1 << 20})
	if err != nil {
		fmt.Fprintln(out, "error:", err)
		return 1
	}
	defer stop()
	fmt.Fprintln(out, url)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		cmd, arg, _ := strings.Cut(sc.Text(), " ")
		switch cmd {
		case "stats":
			var s hubStats
			s.RSS = selfRSS()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			s.HeapInuse, s.StackInuse, s.Goroutines = ms.HeapInuse, ms.StackInuse, runtime.NumGoroutine()
			runtime.GC()
			runtime.ReadMemStats(&ms)
			s.HeapLive = ms.HeapAlloc
			b, _ := json.Marshal(s)
			fmt.Fprintln(out, string(b))
		case "heap":
			f, err := os.Create(arg)
			if err == nil {
				runtime.GC()
				err = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			fmt.Fprintln(out, "heap", err)
		}
	}
	return 0
}

// selfRSS is this process's VmRSS in bytes (0 where /proc is missing).
func selfRSS() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// benchHub is a hub process started by startBenchHub.
type benchHub struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	url string
}

func startBenchHub(b *testing.B) *benchHub {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchServeEnv+"="+b.TempDir())
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	h := &benchHub{cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	b.Cleanup(h.stop)
	h.url = h.line(b)
	if !strings.HasPrefix(h.url, "ws://") {
		b.Fatalf("hub process: %s", h.url)
	}
	return h
}

func (h *benchHub) line(b *testing.B) string {
	if !h.out.Scan() {
		b.Fatalf("hub process ended: %v", h.out.Err())
	}
	return h.out.Text()
}

func (h *benchHub) stats(b *testing.B) hubStats {
	fmt.Fprintln(h.in, "stats")
	var s hubStats
	if err := json.Unmarshal([]byte(h.line(b)), &s); err != nil {
		b.Fatal(err)
	}
	return s
}

func (h *benchHub) stop() {
	h.in.Close()
	h.cmd.Wait()
}

// openIdle opens n connections to url, each authenticated as sk, from
// workers dialers at a time; then, as bench's idle workload does, sends every
// connection's REQ at once and reads each answer up to its EOSE.
func openIdle(url, sk string, n, workers int) ([]*websocket.Conn, error) {
	d := &websocket.Dialer{ReadBufferSize: 1024, WriteBufferSize: 1024, HandshakeTimeout: 10 * time.Second}
	conns := make([]*websocket.Conn, n)
	err := eachConn(n, workers, func(i int) error {
		ws, why, err := dialAuthed(d, url, sk)
		if err == nil && why != "" {
			err = fmt.Errorf("AUTH refused: %s", why)
		}
		conns[i] = ws
		return err
	})
	if err == nil {
		req := []byte(`["REQ","live",{"#h":["bench"],"kinds":[9],"limit":0}]`)
		for _, ws := range conns {
			if err = ws.WriteMessage(websocket.TextMessage, req); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = eachConn(n, workers, func(i int) error { return untilEOSE(conns[i]) })
	}
	if err != nil {
		closeConns(conns)
		return nil, err
	}
	return conns, nil
}

// eachConn runs fn for 0..n-1 on workers goroutines; it returns the first error.
func eachConn(n, workers int, fn func(i int) error) error {
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := fn(i); err != nil {
					errs <- fmt.Errorf("connection %d: %w", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func untilEOSE(ws *websocket.Conn) error {
	ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	defer ws.SetReadDeadline(time.Time{})
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return err
		}
		if bytes.HasPrefix(msg, []byte(`["EOSE"`)) {
			return nil
		}
		if bytes.HasPrefix(msg, []byte(`["CLOSED"`)) {
			return fmt.Errorf("REQ refused: %s", msg)
		}
	}
}

func closeConns(conns []*websocket.Conn) {
	for _, ws := range conns {
		if ws != nil {
			ws.Close()
		}
	}
}

func BenchmarkIdleConns(b *testing.B) {
	const n = 4000
	sk := nostr.GeneratePrivateKey()
	var rss, heap, stack, live, gs float64
	for i := 0; i < b.N; i++ {
		h := startBenchHub(b)
		time.Sleep(time.Second)
		before := h.stats(b)
		conns, err := openIdle(h.url, sk, n, 32)
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(2 * time.Second) // as bench's idle workload
		after := h.stats(b)
		if p := os.Getenv(benchHeapEnv); p != "" {
			fmt.Fprintln(h.in, "heap", p)
			b.Log(h.line(b))
		}
		closeConns(conns)
		h.stop()
		rss += float64(after.RSS - before.RSS)
		heap += float64(after.HeapInuse) - float64(before.HeapInuse)
		stack += float64(after.StackInuse) - float64(before.StackInuse)
		live += float64(after.HeapLive) - float64(before.HeapLive)
		gs += float64(after.Goroutines - before.Goroutines)
	}
	per := float64(b.N) * n
	b.ReportMetric(rss/per, "rss-B/conn")
	b.ReportMetric(heap/per, "heap-B/conn")
	b.ReportMetric(live/per, "live-B/conn")
	b.ReportMetric(stack/per, "stack-B/conn")
	b.ReportMetric(gs/per, "goroutines/conn")
}
