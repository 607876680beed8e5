package test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/agentbridge"
	"github.com/ainb/hive/client/observer"
	"github.com/nbd-wtf/go-nostr"
)

// floodMentions is the size of the flood: mentions of floodBytes each.
const (
	floodMentions = 1500
	floodBytes    = 32 << 10
)

// vmHWM is a process's peak resident set in MiB (from /proc).
func vmHWM(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// With the agent busy, a flood of large mentions from one author: the
// bridge queues at most MaxQueuedPerAuthor of them, answers the overflow
// with one failure reply naming the limit, and its memory stays bounded
// (the queue held every mention whole: 1,500 of 32 KiB took the bridge from
// 31 to 117 MiB; bounded, 32 to 59 MiB). Once the busy turn ends, the queued ones are answered.
func TestBridgeMentionFloodBounded(t *testing.T) {
	e, b := startScripted(t)
	fw := e.watchFrames(t)
	busy := e.mention(t, e.a, e.alice, "room", "[[slow:300s]] busy")
	var session string
	fw.until(20*time.Second, func(f observer.Frame) bool {
		session = f.Session
		return f.Turn == busy.ID && method(f) == "session/prompt"
	})
	start := vmHWM(t, b.cmd.Process.Pid)

	flood := e.h.as(t, e.alice)
	oks := make(chan int, 1)
	go func() {
		n := 0
		for n < floodMentions {
			flood.ws.SetReadDeadline(time.Now().Add(60 * time.Second))
			_, msg, err := flood.ws.ReadMessage()
			if err != nil {
				break
			}
			if strings.HasPrefix(string(msg), `["OK"`) {
				n++
			}
		}
		oks <- n
	}()
	filler := strings.Repeat("flood ", floodBytes/6)
	ids := make([]string, floodMentions)
	for i := range ids {
		ev := e.alice.sign(t, 9, fmt.Sprintf("%d %s", i, filler), nostr.Tag{"h", "room"}, nostr.Tag{"p", e.agent.pk})
		ids[i] = ev.ID
		flood.send([]any{"EVENT", ev})
	}
	if n := <-oks; n != floodMentions {
		t.Fatalf("%d of %d flood events acknowledged", n, floodMentions)
	}
	// the bridge has taken the last flood mention (every one before it too)
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(b.logs(), "event="+ids[floodMentions-1]); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the bridge never logged the last flood mention; log:\n%s", b.logs())
		}
	}
	peak := vmHWM(t, b.cmd.Process.Pid)
	t.Logf("bridge VmHWM: %.0f MiB before the flood, %.0f MiB after %d mentions of %d KiB", start, peak, floodMentions, floodBytes>>10)
	if peak > start+60 {
		t.Errorf("the bridge grew from %.0f to %.0f MiB during the flood", start, peak)
	}
	overflow := e.waitReply(t, "room", ids[agentbridge.MaxQueuedPerAuthor], 60*time.Second, b)
	want := fmt.Sprintf("⚠️ not queued: %d of your mentions already wait (at most %d per author, %d per channel).", agentbridge.MaxQueuedPerAuthor, agentbridge.MaxQueuedPerAuthor, agentbridge.MaxQueuedPerChannel)
	if !strings.HasPrefix(overflow.Content, want) {
		t.Fatalf("overflow reply %q, want it to start %q", overflow.Content, want)
	}
	if n := len(e.replies(t, "room")); n != 1 {
		t.Fatalf("%d agent messages during the busy turn, want the one overflow reply", n)
	}

	e.control(t, observer.Control{V: 1, Type: observer.CtlCancel, Session: session})
	last := e.waitReply(t, "room", ids[agentbridge.MaxQueuedPerAuthor-1], 60*time.Second, b)
	if !strings.HasPrefix(last.Content, fmt.Sprintf("heard %d: 0 flood", agentbridge.MaxQueuedPerAuthor)) {
		t.Fatalf("the queued mentions' reply starts %.60q", last.Content)
	}
	e.settled(t, "room", b)
	if rs := e.replies(t, "room"); len(rs) != 4 {
		var got []string
		for _, r := range rs {
			got = append(got, fmt.Sprintf("%.80q", r.Content))
		}
		t.Fatalf("%d agent messages, want the overflow reply, the cancelled turn's, the batch's and the probe's: %s", len(rs), strings.Join(got, ", "))
	}
}
