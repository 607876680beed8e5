package test

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"math/rand"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// TestDeletedIDsBoundedBinary: kind 5 deletions naming ids that never existed
// must not grow the hub's memory, while they are stored nor after a restart
// (the deleted-id set was a map rebuilt from the log at every start: 200
// deletions of 2,500 ids took a hub from 60 to 667 MB, and it restarted at
// 400 MB). The hub's live Go heap is read through --pprof after a GC, so the
// SQLite page cache (bounded, and the same for any log) does not blur it. A
// deleted event stays refused across the restart.
func TestDeletedIDsBoundedBinary(t *testing.T) {
	const deletions, perDeletion = 100, 2500
	const maxHeap = 24 << 20 // bytes; the map alone held more than 40 MB here
	admin := newKey(t)
	data, addr := t.TempDir(), freeAddr(t)
	pprofAddr := freeAddr(t)
	p := startProc(t, data, addr, "--admin", admin.pk, "--pprof", pprofAddr)
	c := p.as(t, admin)
	victim := admin.sign(t, 1, "to be deleted")
	c.must(victim)
	c.must(admin.sign(t, 5, "", nostr.Tag{"e", victim.ID}))

	rng := rand.New(rand.NewSource(7))
	ids := make([]string, deletions)
	msgs := make([][]byte, deletions)
	id := make([]byte, 32)
	for i := range msgs {
		tags := make(nostr.Tags, perDeletion)
		for j := range tags {
			rng.Read(id)
			tags[j] = nostr.Tag{"e", hex.EncodeToString(id)}
		}
		ev := admin.sign(t, 5, "", tags...)
		ids[i] = ev.ID
		msgs[i], _ = json.Marshal([]any{"EVENT", ev})
	}
	var acked, refused atomic.Int64
	if err := publishPipelined(c.ws, 0, ids, msgs, 8, time.Now().Add(90*time.Second), &acked, &refused); err != nil {
		t.Fatal(err)
	}
	stored := liveHeap(t, pprofAddr)

	p.stop(t, os.Interrupt)
	start := time.Now()
	p = startProc(t, data, addr, "--admin", admin.pk, "--pprof", pprofAddr)
	startup := time.Since(start)
	c = p.as(t, admin)
	if ok, msg := c.publish(victim); ok || !hasPrefix(msg, "blocked: ") {
		t.Fatalf("a deleted event sent again after a restart: ok=%v %q, want blocked:", ok, msg)
	}
	restarted := liveHeap(t, pprofAddr)
	t.Logf("%d deletions of %d ids: live heap %.1f MB with them stored, %.1f MB after a restart (up in %s, VmRSS %.1f MB)",
		deletions, perDeletion, float64(stored)/(1<<20), float64(restarted)/(1<<20), startup.Round(time.Millisecond),
		float64(procStatusKB(t, p.cmd.Process.Pid, "VmRSS"))/1024)
	if stored > maxHeap || restarted > maxHeap {
		t.Errorf("live heap %.1f MB while stored, %.1f MB after a restart: over %d MB, the deleted ids are held in memory",
			float64(stored)/(1<<20), float64(restarted)/(1<<20), maxHeap>>20)
	}
}

// liveHeap asks a hub started with --pprof for its live heap after a GC.
func liveHeap(t testing.TB, pprofAddr string) int64 {
	t.Helper()
	var resp *http.Response
	var err error
	for i := 0; i < 50; i++ { // the pprof listener starts next to the hub's
		if resp, err = http.Get("http://" + pprofAddr + "/debug/pprof/heap?debug=1&gc=1"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# HeapAlloc = "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no HeapAlloc in the hub's heap profile")
	return 0
}
