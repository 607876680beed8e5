package test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow/runner"
	"github.com/nbd-wtf/go-nostr"
)

// ciToken is the secret of these tests: it must never show in an event,
// a record, a note or the runner's log.
const ciToken = "tok-9f2c1e7a5b"

// fileToken is a second secret, read from a file.
const fileToken = "file&secret<42>"

// hit is one request the test server saw.
type hit struct {
	Method, Path, Auth, Key, Extra, Body, Type string
}

// ciServer is a real HTTP server on 127.0.0.1 that records every request
// and answers by path: /deploy JSON echoing the auth header, /fail 500
// echoing the token, /moved a redirect, /big more than 1 MiB, /hang never.
type ciServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
	hang chan struct{}
}

func newCIServer(t *testing.T) *ciServer {
	s := &ciServer{hang: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.hits = append(s.hits, hit{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Idempotency-Key"), r.Header.Get("X-Extra"), string(b), r.Header.Get("Content-Type")})
		s.mu.Unlock()
		switch r.URL.Path {
		case "/deploy":
			json.NewEncoder(w).Encode(map[string]any{"ok": true, "echo": r.Header.Get("Authorization"), "extra": r.Header.Get("X-Extra")})
		case "/fail":
			w.WriteHeader(500)
			fmt.Fprintf(w, "bad token: %s", strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		case "/moved":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		case "/big":
			w.Write([]byte(strings.Repeat("x", runner.HTTPMaxResponse+1)))
		case "/hang":
			<-s.hang
		}
	}))
	t.Cleanup(func() { close(s.hang); s.Close() })
	return s
}

func (s *ciServer) seen() []hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]hit(nil), s.hits...)
}

func (s *ciServer) port() string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

// withHTTPConfig adds secrets and allow_hosts to the runner's config.
func (e *wfEnv) withHTTPConfig(t *testing.T, allow ...string) {
	t.Helper()
	os.WriteFile(filepath.Join(e.dir, "file.token"), []byte(fileToken+"\n"), 0o600)
	q := make([]string, len(allow))
	for i, a := range allow {
		q[i] = fmt.Sprintf("%q", a)
	}
	f, _ := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "[secrets]\nCI_TOKEN = {env = \"HIVE_TEST_CI_TOKEN\"}\nFILE_TOKEN = {file = \"file.token\"}\n[http]\nallow_hosts = [%s]\n", strings.Join(q, ", "))
	f.Close()
}

// The http step through the real binaries, against a real server on
// 127.0.0.1 (listed explicitly): the call carries the secrets and the
// Idempotency-Key; its answer is steps.ID.status, body and json; a secret
// echoed back is [redacted] everywhere; every refusal has its reason:
// a 500 (the token echoed), a redirect, an answer over 1 MiB, a host not
// listed, a loopback address reached through a pattern (by IP and by a
// name that resolves to it), the step's timeout.
func TestWorkflowHTTPStep(t *testing.T) {
	e := newWorkflowEnv(t)
	ci, other := newCIServer(t), newCIServer(t)
	// the test server is listed by itself; "*:PORT2" admits any host on the
	// other server's port, but only at a public address
	e.withHTTPConfig(t, "127.0.0.1:"+ci.port(), "*:"+other.port())
	base := ci.URL
	wf := fmt.Sprintf(`name: calls
channel: ops
on:
  manual:
    inputs:
      service: {type: string, default: api}
steps:
  - id: call
    http:
      url: %[1]s/deploy
      headers: {Authorization: "Bearer ${{ secrets.CI_TOKEN }}", X-Extra: "${{ secrets.FILE_TOKEN }}"}
      body: '${{ toJSON({"service": inputs.service}) }}'
  - id: show
    post: "status ${{ steps.call.status }} ok=${{ steps.call.json.ok }} echo=${{ steps.call.json.echo }} extra=${{ steps.call.json.extra }}"
  - id: echoerr
    http: {url: "%[1]s/fail", headers: {Authorization: "Bearer ${{ secrets.CI_TOKEN }}"}}
    continue_on_error: true
  - id: moved
    http: {url: "%[1]s/moved"}
    continue_on_error: true
  - id: big
    http: {url: "%[1]s/big"}
    continue_on_error: true
  - id: unlisted
    http: {url: "http://127.0.0.1:1/x"}
    continue_on_error: true
  - id: loopback
    http: {url: "%[2]s/x"}
    continue_on_error: true
  - id: rebind
    http: {url: "http://localhost:%[3]s/x"}
    continue_on_error: true
  - id: slow
    timeout: 1s
    http: {url: "%[1]s/hang"}
`, base, other.URL, other.port())
	e.apply(t, "calls", wf)
	rp := e.serveEnv(t, []string{"HIVE_TEST_CI_TOKEN=" + ciToken})

	run := e.runID(t, "calls", "--input", "service=web")
	rec := e.waitFinal(t, run, 60*time.Second)
	if rec.Status != kinds.RunFailed || rec.Reason != "at slow: GET "+base+"/hang: the step's timeout passed" {
		t.Fatalf("final: %+v\n%s", rec, rp.logs())
	}
	hits := ci.seen()
	if len(hits) < 1 || hits[0] != (hit{"POST", "/deploy", "Bearer " + ciToken, run + "/call", fileToken, "{\n  \"service\": \"web\"\n}", "application/json"}) {
		t.Fatalf("the call: %+v", hits)
	}
	if n := len(other.seen()); n != 0 {
		t.Fatalf("a refused address was reached %d times", n)
	}
	reasons := map[string]string{}
	for _, r := range e.records(t, run) {
		if r.Outcome == kinds.StepFailed {
			reasons[r.Step] = r.Reason
		}
	}
	want := map[string]string{
		"echoerr":  "GET " + base + "/fail: the server answered 500: bad token: [redacted]",
		"moved":    "GET " + base + `/moved: the server answered 302, a redirect to "/elsewhere": redirects are not followed; call the final URL`,
		"big":      "GET " + base + "/big: the answer is larger than 1 MiB (the limit of an http step)",
		"unlisted": "GET http://127.0.0.1:1/x: host 127.0.0.1:1 is not in the runner's [http] allow_hosts (127.0.0.1:" + ci.port() + ", *:" + other.port() + "): add it to the runner's config to allow it",
		"loopback": "GET " + other.URL + "/x: 127.0.0.1 is a loopback address: only a host listed in the runner's [http] allow_hosts by itself (not by a pattern like *) may reach one",
		"slow":     "GET " + base + "/hang: the step's timeout passed",
	}
	for step, w := range want {
		if reasons[step] != w {
			t.Errorf("%s:\n got %q\nwant %q", step, reasons[step], w)
		}
	}
	// localhost is a name: its resolved address is what is checked
	rb := reasons["rebind"]
	if rb != "GET http://localhost:"+other.port()+"/x: localhost resolves to 127.0.0.1, a loopback address: only a host listed in the runner's [http] allow_hosts by itself (not by a pattern like *) may reach one" &&
		rb != "GET http://localhost:"+other.port()+"/x: localhost resolves to ::1, a loopback address: only a host listed in the runner's [http] allow_hosts by itself (not by a pattern like *) may reach one" {
		t.Errorf("rebind: %q", rb)
	}
	shown := e.messagesWith(t, "status 200")
	if len(shown) != 1 || shown[0].Content != "status 200 ok=true echo=Bearer [redacted] extra=[redacted]" {
		t.Fatalf("the post of the answer: %+v", shown)
	}
	e.noSecret(t, rp)
}

// noSecret: no stored event of ops or of the runner, and not the runner's
// log, holds a secret's value.
func (e *wfEnv) noSecret(t *testing.T, rp *runnerProc) {
	t.Helper()
	evs := e.query(t, nostr.Filter{Tags: nostr.TagMap{"h": {"ops"}}, Limit: 5000})
	evs = append(evs, e.query(t, nostr.Filter{Authors: []string{e.runnerHex}, Limit: 5000})...)
	for _, ev := range evs {
		b, _ := json.Marshal(ev)
		for _, s := range []string{ciToken, fileToken, "file\\u0026secret"} {
			if strings.Contains(string(b), s) {
				t.Fatalf("kind %d holds a secret: %s", ev.Kind, b)
			}
		}
	}
	if l := rp.logs(); strings.Contains(l, ciToken) || strings.Contains(l, fileToken) {
		t.Fatalf("the runner's log holds a secret:\n%s", l)
	}
}

// An http step is at least once: a runner that dies right after the call
// (before its outcome is recorded) calls again on restart, with the same
// Idempotency-Key, and the run finishes once.
func TestWorkflowHTTPAtLeastOnce(t *testing.T) {
	e := newWorkflowEnv(t)
	ci := newCIServer(t)
	e.withHTTPConfig(t, "127.0.0.1:"+ci.port())
	e.apply(t, "idem", fmt.Sprintf(`name: idem
channel: ops
on: {manual: {}}
steps:
  - id: call
    http: {url: "%s/deploy", method: POST, body: "go", headers: {Authorization: "Bearer ${{ secrets.CI_TOKEN }}"}}
  - id: after
    post: "called: ${{ steps.call.status }}"
`, ci.URL))
	env := []string{"HIVE_TEST_CI_TOKEN=" + ciToken}
	rp := e.serveEnv(t, append(env, runner.CrashEnv+"=after-publish:call"))
	run := e.runID(t, "idem")
	rp.cmd.Wait() // the crash point: exit 137 after the call
	if hits := ci.seen(); len(hits) != 1 {
		t.Fatalf("before the restart: %+v", hits)
	}
	rp = e.serveEnv(t, env)
	if rec := e.waitFinal(t, run, 30*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("final: %+v", rec)
	}
	hits := ci.seen()
	if len(hits) != 2 || hits[0].Key != run+"/call" || hits[1].Key != run+"/call" || hits[1].Body != "go" || hits[1].Type != "text/plain; charset=utf-8" {
		t.Fatalf("calls: %+v", hits)
	}
	if got := statuses(e.records(t, run)); got != "started step/call:running step/call:success step/after:running step/after:success finished" {
		t.Fatalf("records: %s", got)
	}
	if n := len(e.messagesWith(t, "called: 200")); n != 1 {
		t.Fatalf("%d posts of the answer", n)
	}
	e.noSecret(t, rp)
}
