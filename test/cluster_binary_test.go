package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/postgres"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// startProcPair runs two `hive serve --store postgres://...` processes, A and
// B, over one fresh log (at dsn), with extra added to both command lines.
func startProcPair(t *testing.T, admin key, extra ...string) (a, b *hubProc, dsn string) {
	t.Helper()
	dsn = pg.DSN(t)
	args := append([]string{"--admin", admin.pk, "--store", dsn}, extra...)
	dataA, dataB := t.TempDir(), t.TempDir()
	a = startProc(t, dataA, freeAddr(t), args...)
	// Instances share the hub's key, as the README says: copy it over.
	key, err := os.ReadFile(filepath.Join(dataA, "hub.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataB, "hub.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	return a, startProc(t, dataB, freeAddr(t), args...), dsn
}

// liveOn subscribes k to f on a new connection to p and, once the stored
// events are in (EOSE), calls fn from a goroutine with each event that
// arrives and when, until the connection closes at the end of the test.
func liveOn(t *testing.T, p *hubProc, k key, f nostr.Filter, fn func(ev *nostr.Event, at time.Time)) {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(p.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if !answerAuth(ws, k, p.URL) {
		t.Fatalf("AUTH on %s refused", p.URL)
	}
	req, _ := json.Marshal([]any{"REQ", "s", f})
	if err := ws.WriteMessage(websocket.TextMessage, req); err != nil {
		t.Fatal(err)
	}
	eose := make(chan struct{})
	go func() {
		for {
			_, msg, err := ws.ReadMessage()
			at := time.Now()
			if err != nil {
				return
			}
			var m []json.RawMessage
			if json.Unmarshal(msg, &m) != nil || len(m) < 2 {
				continue
			}
			switch str(m[0]) {
			case "EOSE":
				close(eose)
			case "EVENT":
				ev := &nostr.Event{}
				if json.Unmarshal(m[2], ev) == nil {
					fn(ev, at)
				}
			}
		}
	}()
	select {
	case <-eose:
	case <-time.After(10 * time.Second):
		t.Fatalf("no EOSE from %s", p.URL)
	}
}

// TestTwoInstancesKill9: two `hive serve --store postgres://...` processes
// share one log. Eight publishers write to A while a subscriber listens on B;
// A is killed with SIGKILL mid-stream. Every event A acknowledged is in the
// log, and B delivered each event exactly once.
func TestTwoInstancesKill9(t *testing.T) {
	admin := newKey(t)
	a, b, dsn := startProcPair(t, admin)
	var mu sync.Mutex
	delivered := map[string]int{}
	liveOn(t, b, admin, nostr.Filter{Kinds: []int{1}, Tags: nostr.TagMap{"t": {"crash"}}}, func(ev *nostr.Event, _ time.Time) {
		mu.Lock()
		delivered[ev.ID]++
		mu.Unlock()
	})

	acked := ingestUntilKilled(t, a, admin, 1000)
	if len(acked) == 0 {
		t.Fatalf("A acknowledged nothing before it was killed; the test measured nothing\n%s", a.logs())
	}
	db := (&closedHub{DSN: dsn}).rawDB(t)
	defer db.Close()
	for id := range acked {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM events WHERE id = $1`, id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("acknowledged event %s: %d rows in the log (%v)", id, n, err)
		}
	}
	var stored int
	db.QueryRow(`SELECT COUNT(*) FROM events WHERE kind = 1`).Scan(&stored)
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		missing := 0
		for id := range acked {
			if delivered[id] == 0 {
				missing++
			}
		}
		n := len(delivered)
		mu.Unlock()
		if missing == 0 && n >= stored {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B delivered %d of %d stored events; %d of %d acknowledged ones missing", n, stored, missing, len(acked))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A marker committed to the log by a third writer: B delivers it after
	// everything committed before it, so a duplicate of A's events would
	// have come by then.
	third, err := postgres.Open(ctxT(t), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	marker := admin.sign(t, 1, "marker", nostr.Tag{"t", "crash"})
	if _, err := third.Publish(ctxT(t), marker); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		got := delivered[marker.ID]
		mu.Unlock()
		if got > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("B never delivered the marker written by a third instance")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for id, n := range delivered {
		if n != 1 {
			t.Fatalf("B delivered event %s %d times", id, n)
		}
	}
	t.Logf("A acknowledged %d events before SIGKILL, %d stored; B delivered each once", len(acked), stored)
}
