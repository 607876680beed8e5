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
