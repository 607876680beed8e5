package test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/webhook"
	"github.com/nbd-wtf/go-nostr"
)

// hookMade is what `hive workflow hook NAME --json` prints.
type hookMade struct{ URL, Hook, Secret string }

// makeHook runs `hive workflow hook name` as alice with args and reads
// its JSON.
func (e *wfEnv) makeHook(t *testing.T, name string, args ...string) hookMade {
	t.Helper()
	var h hookMade
	out := e.c.ok(append([]string{"workflow", "hook", name, "--json", "--profile", "alice"}, args...)...)
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("hook --json: %v\n%s", err, out)
	}
	return h
}

// hookAnswer is the hub's answer to a POST /hook/<id>.
type hookAnswer struct {
	Code      int
	Raw       string
	Delivery  string
	Run       string
	Duplicate bool
	Error     string
}

// postHook POSTs body with headers h to url.
func postHook(t *testing.T, url string, h http.Header, body []byte) hookAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := hookAnswer{Code: resp.StatusCode, Raw: string(raw)}
	json.Unmarshal(raw, &a)
	return a
}

// standardHeaders signs body the Standard Webhooks way, as of at.
func standardHeaders(t *testing.T, secret, id string, at time.Time, body []byte) http.Header {
	t.Helper()
	h, err := webhook.SignStandard(secret, id, at, body)
	if err != nil {
		t.Fatal(err)
	}
	h.Set("Content-Type", "application/json")
	return h
}

// githubHeaders signs body GitHub's way, for event and delivery id.
func githubHeaders(secret, event, delivery string, body []byte) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-GitHub-Event", event)
	h.Set("X-GitHub-Delivery", delivery)
	h.Set("X-Hub-Signature-256", webhook.SignGitHub(secret, body))
	return h
}

// deliveries are the stored webhook deliveries (40463) of alice's workflow.
func (e *wfEnv) deliveries(t *testing.T, name string) []nostr.Event {
	t.Helper()
	return e.query(t, nostr.Filter{Kinds: []int{kinds.WebhookDelivery}, Tags: nostr.TagMap{"a": {e.address(name)}}})
}

// webhookRun is the run a stored delivery starts in alice's workflow.
func (e *wfEnv) webhookRun(name string, delivery nostr.Event) string {
	return client.RunClaim(e.runnerHex, "ops", e.address(name), client.TriggerWebhook, delivery.ID, delivery.CreatedAt, 1).ID
}

// writeFile writes a file under the environment's directory.
func (e *wfEnv) writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// notAccepted is the one answer every refusal gets.
const notAccepted = `{"error":"not accepted"}` + "\n"

// hookedWorkflow starts a workflow "hooked" of ops with a webhook
// trigger; its steps follow.
const hookedWorkflow = "name: hooked\nchannel: ops\non:\n  webhook: {}\nsteps:\n"

// postAtOnce POSTs n copies of one signed delivery at once, round robin
// over urls: exactly one is stored (202), the others are 200 duplicates
// naming it; it returns the stored one's answer.
func postAtOnce(t *testing.T, urls []string, hd http.Header, body []byte, n int) hookAnswer {
	t.Helper()
	answers := make([]hookAnswer, n)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = postHook(t, urls[i%len(urls)], hd.Clone(), body)
		}()
	}
	wg.Wait()
	accepted := 0
	for _, a := range answers {
		switch {
		case a.Code == 202:
			accepted++
		case a.Code != 200 || !a.Duplicate:
			t.Fatalf("a copy sent at once: %d %s", a.Code, a.Raw)
		}
		if a.Delivery != answers[0].Delivery || a.Run != answers[0].Run {
			t.Fatalf("copies name different deliveries: %+v", answers)
		}
	}
	if accepted != 1 {
		t.Fatalf("%d of %d copies sent at once were stored, want 1: %+v", accepted, n, answers)
	}
	return answers[0]
}

// ranOnce checks that run finished, posted text once, and is the only run
// of alice's workflow name.
func (e *wfEnv) ranOnce(t *testing.T, name, run, text string) {
	t.Helper()
	if rec := e.waitFinal(t, run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("run ended %s: %s", rec.Status, rec.Reason)
	}
	if posts := e.messagesWith(t, text); len(posts) != 1 {
		t.Fatalf("%q posted %d times, want once", text, len(posts))
	}
	if n := len(e.claims(t, name)); n != 1 {
		t.Fatalf("%d claims, want 1", n)
	}
}
