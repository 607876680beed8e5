package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	e.apply(t, "hooked", hookedWorkflow+`  - id: say
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
	first := postAtOnce(t, urls, hd, body, 4)
	// once more to B, after the fact
	if again := postHook(t, urls[0], hd.Clone(), body); again.Code != 200 || again.Delivery != first.Delivery {
		t.Fatalf("to B again: %d %s", again.Code, again.Raw)
	}
	e.ranOnce(t, "hooked", first.Run, "delivery m-twice ran")
	if n := len(e.deliveries(t, "hooked")); n != 1 {
		t.Fatalf("%d deliveries, want 1", n)
	}
}
