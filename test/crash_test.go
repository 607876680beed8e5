package test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"github.com/ainb/hive/client"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	_ "github.com/mattn/go-sqlite3"
	"github.com/nbd-wtf/go-nostr"
)

// TestCrashKeepsAcknowledgedEvents kills the hub with SIGKILL during 8-publisher
// ingest, restarts it, and checks that every event that got OK true is in the
// log and the database passes integrity_check. HIVE_CRASH_ROUNDS sets the
// number of kills (make soak uses 50).
func TestCrashKeepsAcknowledgedEvents(t *testing.T) {
	rounds := 3
	if v, err := strconv.Atoi(os.Getenv("HIVE_CRASH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	if testing.Short() {
		rounds = 1
	}
	admin := newKey(t)
	data := t.TempDir()
	addr := freeAddr(t)
	acked := make(map[string]bool)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for round := 0; round < rounds; round++ {
		p := startProc(t, data, addr, "--admin", admin.pk)
		got := ingestUntilKilled(t, p, admin, 50+rng.Intn(1500))
		for id := range got {
			acked[id] = true
		}
		missing, integrity := checkLog(t, filepath.Join(data, "hive.db"), acked)
		if integrity != "ok" {
			t.Fatalf("round %d: integrity_check = %q", round, integrity)
		}
		if missing > 0 {
			t.Fatalf("round %d: %d of %d acknowledged events lost after kill -9", round, missing, len(acked))
		}
		t.Logf("round %d: %d acknowledged events, all present", round, len(acked))
	}
	if len(acked) == 0 {
		t.Fatal("no event was acknowledged; the test measured nothing")
	}
}

// ingestUntilKilled runs 8 publishers until the hub is killed (once afterAcks
// events were acknowledged), and
// returns the ids that got OK true.
func ingestUntilKilled(t *testing.T, p *hubProc, k key, afterAcks int) map[string]bool {
	var mu sync.Mutex
	acked := make(map[string]bool)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ws, _, err := websocket.DefaultDialer.Dial(p.URL, nil)
			if err != nil {
				return
			}
			defer ws.Close()
			if !answerAuth(ws, k, p.URL) {
				return
			}
			// pipeline a window of 32 events per publisher
			pending := make(map[string]bool)
			next := 0
			for {
				for len(pending) < 32 {
					ev := &nostr.Event{Kind: 1, CreatedAt: nostr.Now(), Content: fmt.Sprintf("w%d-%d", w, next), Tags: nostr.Tags{{"t", "crash"}}}
					ev.Sign(k.sk)
					next++
					b, _ := json.Marshal([]any{"EVENT", ev})
					if ws.WriteMessage(websocket.TextMessage, b) != nil {
						return
					}
					pending[ev.ID] = true
				}
				_, msg, err := ws.ReadMessage()
				if err != nil {
					return
				}
				var m []json.RawMessage
				if json.Unmarshal(msg, &m) != nil || str(m[0]) != "OK" {
					continue
				}
				id := str(m[1])
				delete(pending, id)
				if string(m[2]) == "true" {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}
		}(w)
	}
	// kill -9 once afterAcks events were acknowledged, with more in flight
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= afterAcks || time.Now().After(deadline) {
			break
		}
	}
	p.kill9()
	wg.Wait()
	return acked
}

// answerAuth answers the NIP-42 challenge the hub sends on connect.
func answerAuth(ws *websocket.Conn, k key, url string) bool {
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer ws.SetReadDeadline(time.Time{})
	_, msg, err := ws.ReadMessage()
	var m []json.RawMessage
	if err != nil || json.Unmarshal(msg, &m) != nil || str(m[0]) != "AUTH" {
		return false
	}
	ev := client.AuthEvent(url, str(m[1]), nil)
	ev.CreatedAt = nostr.Now()
	ev.Sign(k.sk)
	b, _ := json.Marshal([]any{"AUTH", ev})
	if ws.WriteMessage(websocket.TextMessage, b) != nil {
		return false
	}
	_, msg, err = ws.ReadMessage()
	return err == nil && json.Unmarshal(msg, &m) == nil && str(m[0]) == "OK" && string(m[2]) == "true"
}

func checkLog(t *testing.T, path string, acked map[string]bool) (missing int, integrity string) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil {
		t.Fatal(err)
	}
	present := make(map[string]bool)
	rows, err := db.Query("SELECT id FROM events")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		present[id] = true
	}
	rows.Close()
	for id := range acked {
		if !present[id] {
			missing++
		}
	}
	return missing, integrity
}
