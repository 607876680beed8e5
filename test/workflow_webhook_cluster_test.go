package test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/kinds"
)

// Two `hive serve` over one PostgreSQL log (sharing hub.key and the
// admin's key, as the README says): the runner is connected to instance A
// and the webhook's deliveries go to instance B. One delivery sent to B
// and to A at once, twice each, is stored once (one 202, the rest 200
// duplicate naming it) and runs once; the run's post comes from the
// runner on A.
func TestWorkflowWebhookTwoInstances(t *testing.T) {
	dsn := pg.DSN(t)
	dir := t.TempDir()
	dataA, dataB := filepath.Join(dir, "hubA"), filepath.Join(dir, "hubB")
	a := startProc(t, dataA, freeAddr(t), "--store", dsn)
	os.MkdirAll(dataB, 0o700)
	for _, f := range []string{"hub.key", "admin.key"} {
		b, err := os.ReadFile(filepath.Join(dataA, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dataB, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b := startProc(t, dataB, freeAddr(t), "--store", dsn)
	e := workflowEnvOn(t, dir, a, filepath.Join(dataA, "admin.key"))
	e.apply(t, "hooked", `name: hooked
channel: ops
on:
  webhook: {}
steps:
  - id: say
    post: 'delivery ${{ webhook.delivery }} ran'
`)
	h := e.makeHook(t, "hooked")
	e.serve(t)
	urls := []string{strings.Replace(h.URL, a.addr, b.addr, 1), h.URL}
	if urls[0] == urls[1] {
		t.Fatalf("hook URL %s does not name instance A (%s)", h.URL, a.addr)
	}
	body := []byte(`{"n":1}`)
	hd := standardHeaders(t, h.Secret, "m-twice", time.Now(), body)
	answers := make([]hookAnswer, 4)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = postHook(t, urls[i%2], hd.Clone(), body)
		}()
	}
	wg.Wait()
	accepted := 0
	for _, ans := range answers {
		if ans.Code == 202 {
			accepted++
		} else if ans.Code != 200 || !ans.Duplicate {
			t.Fatalf("a copy: %d %s", ans.Code, ans.Raw)
		}
		if ans.Delivery != answers[0].Delivery || ans.Run != answers[0].Run {
			t.Fatalf("copies name different deliveries: %+v", answers)
		}
	}
	if accepted != 1 {
		t.Fatalf("%d of 4 copies accepted, want 1: %+v", accepted, answers)
	}
	// once more to B, after the fact
	if again := postHook(t, urls[0], hd.Clone(), body); again.Code != 200 || again.Delivery != answers[0].Delivery {
		t.Fatalf("to B again: %d %s", again.Code, again.Raw)
	}
	if rec := e.waitFinal(t, answers[0].Run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("run ended %s: %s", rec.Status, rec.Reason)
	}
	if posts := e.messagesWith(t, "delivery m-twice ran"); len(posts) != 1 {
		t.Fatalf("%d posts, want 1", len(posts))
	}
	if n := len(e.claims(t, "hooked")); n != 1 {
		t.Fatalf("%d claims, want 1", n)
	}
	if n := len(e.deliveries(t, "hooked")); n != 1 {
		t.Fatalf("%d deliveries, want 1", n)
	}
}
