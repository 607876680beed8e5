package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// promptFeed is the scripted agents' prompt log as a FIFO that the benchmark
// reads as lines arrive. Waiting for a prompt costs the benchmark no CPU: a
// loop polling a log file would compete with the hub, the bridge and the
// agent it measures for the machine's cores.
type promptFeed struct {
	f    *os.File
	mu   sync.Mutex
	at   map[string]int64 // event id -> unix nanos the agent's Prompt handler ran at
	read map[string]int64 // event id -> unix nanos the agent's read of stdin brought it
	n    int              // prompts read
	wake chan struct{}
}

// openPromptFeed makes the FIFO at path and reads it until the benchmark ends.
func openPromptFeed(b *testing.B, path string) *promptFeed {
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0) // read-write: agents never block opening it
	if err != nil {
		b.Fatal(err)
	}
	pf := &promptFeed{f: f, at: map[string]int64{}, read: map[string]int64{}, wake: make(chan struct{}, 1)}
	b.Cleanup(func() { f.Close() })
	go func() {
		sc := bufio.NewScanner(f)
		for sc.Scan() { // "[mention by ... event <id>] <handler unixnano> <read unixnano>"
			f := strings.Fields(sc.Text())
			pf.mu.Lock()
			pf.n++
			if n := len(f); n >= 4 && f[n-4] == "event" {
				id := strings.TrimSuffix(f[n-3], "]")
				pf.at[id], _ = strconv.ParseInt(f[n-2], 10, 64)
				pf.read[id], _ = strconv.ParseInt(f[n-1], 10, 64)
			}
			pf.mu.Unlock()
			select {
			case pf.wake <- struct{}{}:
			default:
			}
		}
	}()
	return pf
}

// count is the number of prompts the agents have read.
func (pf *promptFeed) count() int {
	pf.mu.Lock()
	defer pf.mu.Unlock()
	return pf.n
}

// wait returns when the agent's Prompt handler ran for mention id, and when
// its read of stdin brought the prompt (zeros if not within d).
func (pf *promptFeed) wait(id string, d time.Duration) (handled, read int64) {
	timeout := time.After(d)
	for {
		pf.mu.Lock()
		handled, read = pf.at[id], pf.read[id]
		pf.mu.Unlock()
		if handled != 0 {
			return handled, read
		}
		select {
		case <-pf.wake:
		case <-timeout:
			return 0, 0
		}
	}
}

func benchEnv(b *testing.B, processes, channels int) (*bridgeEnv, *bridgeProc, *promptFeed, []string) {
	e := newBridgeEnv(b)
	var chans []string
	for i := 0; i < channels; i++ {
		ch := fmt.Sprintf("bench%d", i)
		e.channel(b, ch, "private")
		chans = append(chans, ch)
	}
	logPath := filepath.Join(e.dir, "prompts.fifo")
	feed := openPromptFeed(b, logPath)
	e.config(b, []string{goTool(b, "acpagent")}, fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_LOG = %q }", filepath.Join(e.dir, "sessions"), logPath),
		fmt.Sprintf("processes = %d", processes))
	return e, e.start(b), feed, chans
}

// Mention sent to the hub, and mention stored (the hub's OK, which follows
// the commit), to the prompt handed to the agent's Prompt handler (after the
// read from stdin and the SDK's JSON decoding) and to the read from stdin
// itself, one mention at a time.
// go test -tags libsecp256k1,sqlite_fts5 -run '^$' -bench BridgeMentionToPrompt -benchtime 300x ./test/
func BenchmarkBridgeMentionToPrompt(b *testing.B) {
	e, br, feed, chans := benchEnv(b, 1, 1)
	benchMentions(b, e, br, feed, chans[0], nil)
}

// BenchmarkBridgeMentionToPrompt with each mention in a thread of 200
// messages of alice's and bob's (and a new message of bob's in it before
// each mention), so every prompt's context is chosen from the thread: the
// first mention loads it from the hub, the bridge's context cache keeps it
// current from then on.
// go test -tags libsecp256k1,sqlite_fts5 -run '^$' -bench BridgeMentionToPromptThread200 -benchtime 300x ./test/
func BenchmarkBridgeMentionToPromptThread200(b *testing.B) {
	e, br, feed, chans := benchEnv(b, 1, 1)
	ch := chans[0]
	e.a.must(e.alice.sign(b, 9000, "", nostr.Tag{"h", ch}, nostr.Tag{"p", e.bob.pk}))
	e.a.must(e.alice.sign(b, 0, `{"name":"alice"}`))
	e.b.must(e.bob.sign(b, 0, `{"name":"bob"}`))
	root := e.a.must(e.alice.sign(b, 9, "the plan, message 0", nostr.Tag{"h", ch}))
	inThread := []nostr.Tag{{"h", ch}, {"e", root.ID, "", "root"}}
	for i := 1; i < 200; i++ {
		who, r := e.alice, e.a
		if i%2 == 1 {
			who, r = e.bob, e.b
		}
		r.must(who.sign(b, 9, fmt.Sprintf("thread message %d: %s", i, strings.Repeat("words ", 20)), inThread...))
	}
	benchMentions(b, e, br, feed, ch, func(i int) {
		e.b.must(e.bob.sign(b, 9, fmt.Sprintf("bob's new point %d", i), inThread...))
	}, inThread[1])
}

// benchMentions measures b.N mentions in ch one at a time (before runs
// before each, unmeasured; extra are the mentions' extra tags) and reports
// the figures.
func benchMentions(b *testing.B, e *bridgeEnv, br *bridgeProc, feed *promptFeed, ch string, before func(i int), extra ...nostr.Tag) {
	warm := e.mention(b, e.a, e.alice, ch, "warm up", extra...)
	e.waitReply(b, ch, warm.ID, 30*time.Second, br)
	lat := make([]time.Duration, 0, b.N)    // from sending the EVENT
	fromOK := make([]time.Duration, 0, b.N) // from the hub's OK (stored)
	toRead := make([]time.Duration, 0, b.N) // from the OK to the read of stdin
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if before != nil {
			b.StopTimer()
			before(i)
			b.StartTimer()
		}
		ev := e.alice.sign(b, 9, fmt.Sprintf("m%d", i), append([]nostr.Tag{{"h", ch}, {"p", e.agent.pk}}, extra...)...)
		start := time.Now()
		e.a.must(ev)
		stored := time.Now()
		got, read := feed.wait(ev.ID, 10*time.Second)
		if got == 0 {
			b.Fatalf("mention %d never reached the agent", i)
		}
		lat = append(lat, time.Unix(0, got).Sub(start))
		fromOK = append(fromOK, time.Unix(0, got).Sub(stored))
		toRead = append(toRead, time.Unix(0, read).Sub(stored))
		e.waitReply(b, ch, ev.ID, 10*time.Second, br) // one turn at a time: no batching
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
	b.ReportMetric(q(toRead, 0.5), "stored-read-p50-ms")
	b.ReportMetric(q(toRead, 0.99), "stored-read-p99-ms")
}

// Turns per second with 32 pooled scripted agents and 32 channels: b.N
// mentions spread over the channels, sent at once; the clock stops when a
// live subscription to the agent's replies has seen every mention answered
// (mentions that arrive during a turn are answered together: "heard N").
// go test -tags libsecp256k1,sqlite_fts5 -run '^$' -bench BridgeTurns32 -benchtime 1000x ./test/
func BenchmarkBridgeTurns32(b *testing.B) {
	e, br, feed, chans := benchEnv(b, 32, 32)
	for _, ch := range chans { // every process up and every session open
		w := e.mention(b, e.a, e.alice, ch, "warm up")
		e.waitReply(b, ch, w.ID, 60*time.Second, br)
	}
	evs := make([]*nostr.Event, b.N)
	asked := make(map[string]bool, b.N)
	for i := range evs {
		evs[i] = e.alice.sign(b, 9, fmt.Sprintf("t%d", i), nostr.Tag{"h", chans[i%len(chans)]}, nostr.Tag{"p", e.agent.pk})
		asked[evs[i].ID] = true
	}
	done := watchAnswers(b, e, chans, asked)
	before := feed.count()
	b.ResetTimer()
	start := time.Now()
	for _, ev := range evs {
		e.a.send([]any{"EVENT", ev})
	}
	var end time.Time
	select {
	case end = <-done:
	case <-time.After(5 * time.Minute):
		b.Fatalf("not every mention answered within 5 minutes; bridge log:\n%s", br.logs())
	}
	elapsed := end.Sub(start)
	b.StopTimer()
	turns := feed.count() - before
	b.ReportMetric(float64(turns)/elapsed.Seconds(), "turns/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "mentions/s")
	b.ReportMetric(float64(b.N)/float64(turns), "mentions/turn")
}

// watchAnswers subscribes to the agent's replies in chans and returns when
// the replies to mentions in asked have answered all of them.
func watchAnswers(b *testing.B, e *bridgeEnv, chans []string, asked map[string]bool) <-chan time.Time {
	r := e.h.as(b, e.alice)
	r.send([]any{"REQ", "answers", nostr.Filter{Kinds: []int{9}, Authors: []string{e.agent.pk}, Tags: nostr.TagMap{"h": chans}}})
	done := make(chan time.Time, 1)
	go func() {
		r.ws.SetReadDeadline(time.Time{})
		seen, answered := map[string]bool{}, 0
		for {
			_, msg, err := r.ws.ReadMessage()
			if err != nil {
				return
			}
			var arr []json.RawMessage
			ev := &nostr.Event{}
			if json.Unmarshal(msg, &arr) != nil || len(arr) < 3 || str(arr[0]) != "EVENT" || json.Unmarshal(arr[2], ev) != nil || seen[ev.ID] {
				continue
			}
			seen[ev.ID] = true
			var heard int
			if t := ev.Tags.FindLast("e"); len(t) >= 4 && t[3] == "reply" && asked[t[1]] {
				if _, err := fmt.Sscanf(ev.Content, "heard %d:", &heard); err == nil {
					answered += heard
				}
			}
			if answered >= len(asked) {
				done <- time.Now()
				return
			}
		}
	}()
	return done
}
