package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"
)

// floodEnv names the environment variable that makes this test binary a
// flooder (see startFlooder) instead of running tests.
const floodEnv = "HIVE_TEST_FLOODER"

// floodPlan is what a flooder process does: from each source address, hold
// n connections to addr (re-dialling each one the hub closes), sending
// payload on each.
type floodPlan struct {
	Addr    string
	Sources []string
	N       int
	Payload []byte
}

// startFlooder runs plan in a child process (this test binary again), so
// that the flood's thousands of goroutines do not share a Go scheduler with
// the member whose login a test times: what the test measures is the hub.
// It returns the connections the flooder holds open now and the dials it
// made so far, updated as it reports them; the flooder ends with the test.
func startFlooder(t *testing.T, plan floodPlan) (open, dialled *atomic.Int64) {
	t.Helper()
	b, _ := json.Marshal(plan)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), floodEnv+"="+string(b))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	open, dialled = &atomic.Int64{}, &atomic.Int64{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var o, d int64
			if _, err := fmt.Sscan(sc.Text(), &o, &d); err == nil {
				open.Store(o)
				dialled.Store(d)
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close() // the flooder stops when its stdin closes
		<-done
		cmd.Wait()
	})
	return open, dialled
}

// runFlooder is the child's side of startFlooder: it floods as planned and
// prints how many connections it holds and has dialled every 20 ms until
// stdin closes.
func runFlooder(spec string) {
	var plan floodPlan
	if err := json.Unmarshal([]byte(spec), &plan); err != nil {
		fmt.Fprintln(os.Stderr, "flooder:", err)
		os.Exit(2)
	}
	stop := make(chan struct{})
	var opens, dials []*atomic.Int64
	for _, src := range plan.Sources {
		d, o := holdConns(plan.Addr, src, plan.N, math.MaxInt64, plan.Payload, stop)
		opens, dials = append(opens, o), append(dials, d)
	}
	sum := func(vs []*atomic.Int64) (n int64) {
		for _, v := range vs {
			n += v.Load()
		}
		return n
	}
	go func() { io.Copy(io.Discard, os.Stdin); close(stop) }()
	for {
		select {
		case <-stop:
			return
		case <-time.After(20 * time.Millisecond):
		}
		fmt.Println(sum(opens), sum(dials))
	}
}
