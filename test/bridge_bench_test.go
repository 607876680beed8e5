package test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// promptTimes reads the scripted agent's prompt log: event id -> unix nanos
// at which the agent read the prompt from its stdin.
func promptTimes(path string) map[string]int64 {
	b, _ := os.ReadFile(path)
	out := map[string]int64{}
	for _, l := range strings.Split(string(b), "\n") {
		i := strings.Index(l, "event ")
		j := strings.LastIndex(l, " ")
		if i < 0 || j < 0 {
			continue
		}
		id := strings.TrimSuffix(l[i+6:j], "]")
		ns, _ := strconv.ParseInt(l[j+1:], 10, 64)
		out[id] = ns
	}
	return out
}

func benchEnv(b *testing.B, processes, channels int) (*bridgeEnv, *bridgeProc, string, []string) {
	e := newBridgeEnv(b)
	var chans []string
	for i := 0; i < channels; i++ {
		ch := fmt.Sprintf("bench%d", i)
		e.channel(b, ch, "private")
		chans = append(chans, ch)
	}
	logPath := filepath.Join(e.dir, "prompts.log")
	e.config(b, []string{goTool(b, "acpagent")}, fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_LOG = %q }", filepath.Join(e.dir, "sessions"), logPath),
		fmt.Sprintf("processes = %d", processes))
	return e, e.start(b), logPath, chans
}

// Mention sent to the hub (until the hub's OK, which follows the commit) to
// the prompt read by the agent from its stdin, one mention at a time.
// go test -tags libsecp256k1 -run '^$' -bench BridgeMentionToPrompt -benchtime 300x ./test/
func BenchmarkBridgeMentionToPrompt(b *testing.B) {
	e, br, logPath, chans := benchEnv(b, 1, 1)
	warm := e.mention(b, e.a, e.alice, chans[0], "warm up")
	e.waitReply(b, chans[0], warm.ID, 30*time.Second, br)
	lat := make([]time.Duration, 0, b.N)    // from sending the EVENT
	fromOK := make([]time.Duration, 0, b.N) // from the hub's OK (stored)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := e.alice.sign(b, 9, fmt.Sprintf("m%d", i), nostr.Tag{"h", chans[0]}, nostr.Tag{"p", e.agent.pk})
		start := time.Now()
		e.a.must(ev)
		stored := time.Now()
		var got int64
		for deadline := time.Now().Add(10 * time.Second); got == 0 && time.Now().Before(deadline); {
			got = promptTimes(logPath)[ev.ID]
			if got == 0 {
				time.Sleep(200 * time.Microsecond)
			}
		}
		if got == 0 {
			b.Fatalf("mention %d never reached the agent", i)
		}
		lat = append(lat, time.Unix(0, got).Sub(start))
		fromOK = append(fromOK, time.Unix(0, got).Sub(stored))
		e.waitReply(b, chans[0], ev.ID, 10*time.Second, br) // one turn at a time: no batching
	}
	b.StopTimer()
	q := func(ds []time.Duration, p float64) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(q(lat, 0.5), "p50-ms")
	b.ReportMetric(q(lat, 0.99), "p99-ms")
	b.ReportMetric(q(fromOK, 0.5), "stored-p50-ms")
	b.ReportMetric(q(fromOK, 0.99), "stored-p99-ms")
}

// Turns per second with 32 pooled scripted agents and 32 channels: b.N
// mentions spread over the channels, sent at once; the clock stops when
// every mention is answered.
// go test -tags libsecp256k1 -run '^$' -bench BridgeTurns32 -benchtime 2000x ./test/
func BenchmarkBridgeTurns32(b *testing.B) {
	e, br, logPath, chans := benchEnv(b, 32, 32)
	for _, ch := range chans { // every process up and every session open
		w := e.mention(b, e.a, e.alice, ch, "warm up")
		e.waitReply(b, ch, w.ID, 60*time.Second, br)
	}
	before := len(promptTimes(logPath))
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		e.a.send([]any{"EVENT", e.alice.sign(b, 9, fmt.Sprintf("t%d", i), nostr.Tag{"h", chans[i%len(chans)]}, nostr.Tag{"p", e.agent.pk})})
	}
	answered := func() int {
		n := 0
		for _, ch := range chans {
			for _, ev := range e.replies(b, ch) {
				var h int
				if _, err := fmt.Sscanf(ev.Content, "heard %d:", &h); err == nil {
					n += h
				}
			}
		}
		return n - len(chans) // minus the warm-up turns
	}
	for deadline := time.Now().Add(5 * time.Minute); answered() < b.N; {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d mentions answered", answered(), b.N)
		}
		time.Sleep(50 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	turns := len(promptTimes(logPath)) - before
	b.ReportMetric(float64(turns)/elapsed.Seconds(), "turns/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "mentions/s")
	b.ReportMetric(float64(b.N)/float64(turns), "mentions/turn")
}
