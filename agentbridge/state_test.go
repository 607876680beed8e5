package agentbridge

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Changes are visible at once, reach the file in the background, and a
// reopened state has all of them, whatever the interleaving of writers.
func TestStateWritesBehind(t *testing.T) {
	dir := t.TempDir()
	var failed []error
	s, err := OpenState(dir, "a", func(err error) { failed = append(failed, err) })
	if err != nil {
		t.Fatal(err)
	}
	if !s.Fresh() {
		t.Fatal("a new state is not fresh")
	}
	at := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("m%d", i)
			s.MarkAnswered([]Mention{{ID: id, At: at}}, at.Unix()+int64(i))
			if !s.Answered(id) {
				t.Errorf("%s not answered right after MarkAnswered", id)
			}
			s.SetSession(fmt.Sprintf("ch%d", i), SessionRef{Session: "s" + id, Cwd: "."})
		}()
	}
	wg.Wait()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenState(dir, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Fresh() || r.Cursor() != at.Unix()+49 {
		t.Fatalf("reopened: fresh %v, cursor %d, want %d", r.Fresh(), r.Cursor(), at.Unix()+49)
	}
	for i := 0; i < 50; i++ {
		if !r.Answered(fmt.Sprintf("m%d", i)) {
			t.Fatalf("m%d lost", i)
		}
		if ref, ok := r.Session(fmt.Sprintf("ch%d", i)); !ok || ref.Session != fmt.Sprintf("sm%d", i) {
			t.Fatalf("session of ch%d: %+v %v", i, ref, ok)
		}
	}
	if len(failed) > 0 {
		t.Fatal(failed)
	}
}

// A write that fails is reported, and Flush returns its error.
func TestStateWriteFailure(t *testing.T) {
	dir := t.TempDir()
	got := make(chan error, 1)
	s, err := OpenState(dir, "a", func(err error) { got <- err })
	if err != nil {
		t.Fatal(err)
	}
	// A directory where the temporary file goes: even root cannot write it.
	if err := os.Mkdir(filepath.Join(dir, "a", "state.json.tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	s.SetSession("ch", SessionRef{Session: "s"})
	if err := s.Flush(); err == nil {
		t.Fatal("Flush: no error from a read-only state directory")
	}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the failed write was not reported")
	}
}

// The turns in flight outlive a run: the next one opens the state with
// them (LastRunTurns) until each is ended; a turn ended with another
// record's start (a retry's since) is kept.
func TestStateTurnsOutliveARun(t *testing.T) {
	dir := t.TempDir()
	s1, err := OpenState(dir, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	s1.BeginTurn("t1", TurnRecord{Channel: "c", Mentions: []MentionRef{{ID: "t1", Author: "alice"}}, Began: 1})
	s1.BeginTurn("t2", TurnRecord{Channel: "c", Began: 2})
	s1.EndTurn("t2", 2)
	s1.EndTurn("t1", 99)
	if len(s1.LastRunTurns()) != 0 {
		t.Fatalf("a fresh state has turns of a last run: %v", s1.LastRunTurns())
	}
	s1.Flush()
	s2, err := OpenState(dir, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	last := s2.LastRunTurns()
	if len(last) != 1 || last["t1"].Channel != "c" || len(last["t1"].Mentions) != 1 || last["t1"].Mentions[0].Author != "alice" {
		t.Fatalf("the next run's last turns: %+v", last)
	}
	s2.EndTurn("t1", 1)
	s2.Flush()
	s3, err := OpenState(dir, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s3.LastRunTurns()) != 0 {
		t.Fatalf("an ended turn is still there: %v", s3.LastRunTurns())
	}
}
