package test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/webhook"
	"github.com/nbd-wtf/go-nostr"
)

// workflowRunBody is the part of GitHub's workflow_run delivery the
// example reads.
const workflowRunBody = `{"action":"completed","workflow_run":{"name":"CI","head_branch":"main","conclusion":"success","html_url":"https://ci.example.com/runs/7"}}`

// The CI webhook example through the real binaries, as written: hive
// workflow hook prints the URL and a secret once; a GitHub-signed
// workflow_run delivery is answered 202 with its delivery and run ids, and
// the runner posts what the example says; the same delivery again is 200
// duplicate (the first's id) and no second run; hive workflow hook send
// signs the Standard Webhooks way and starts one more run.
func TestWorkflowWebhookRunsTheExample(t *testing.T) {
	e := newWorkflowEnv(t)
	src, err := os.ReadFile("../examples/workflows/ci-webhook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e.apply(t, "ci-notify", string(src))
	h := e.makeHook(t, "ci-notify")
	if want := "http://" + e.p.addr + "/hook/" + h.Hook; h.URL != want || !webhook.ValidHookID(h.Hook) || webhook.CheckSecret(h.Secret) != nil || !strings.HasPrefix(h.Secret, "whsec_") {
		t.Fatalf("hook: %+v (want url %s)", h, want)
	}
	if again := e.makeHook(t, "ci-notify"); again.URL != h.URL || again.Secret != "" {
		t.Fatalf("hook a second time shows the URL only: %+v", again)
	}
	if out, want := e.c.ok("workflow", "hook", "ci-notify", "--profile", "alice"), "url:    "+h.URL+"\nsecret: shown once, when it was made (--rotate makes a new one)\n"; out != want {
		t.Fatalf("hook, human:\n got %q\nwant %q", out, want)
	}
	// bob, a member but no admin of ops, may not rotate it
	if _, stderr, code := e.c.run("workflow", "hook", "ci-notify", "--rotate", "--profile", "bob"); code != 3 ||
		!strings.Contains(stderr, "restricted: only a channel owner or admin may set a workflow's webhook in channel ops") {
		t.Fatalf("bob's rotate: exit %d %s", code, stderr)
	}
	hooks := e.query(t, nostr.Filter{Kinds: []int{kinds.WorkflowHook}})
	if len(hooks) != 1 || strings.Contains(hooks[0].String(), h.Secret) || strings.Contains(hooks[0].Content, strings.TrimPrefix(h.Secret, "whsec_")) {
		t.Fatalf("the hook event must hold the secret sealed: %+v", hooks)
	}
	e.serve(t)

	body := []byte(workflowRunBody)
	first := postHook(t, h.URL, githubHeaders(h.Secret, "workflow_run", "gh-1", body), body)
	if first.Code != 202 || len(first.Delivery) != 64 || len(first.Run) != 64 || first.Duplicate {
		t.Fatalf("first delivery: %d %s", first.Code, first.Raw)
	}
	if rec := e.waitFinal(t, first.Run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("the run ended %s: %s", rec.Status, rec.Reason)
	}
	want := "✅ CI on main: success\nhttps://ci.example.com/runs/7"
	if posts := e.messagesWith(t, want); len(posts) != 1 || posts[0].PubKey != e.runnerHex {
		t.Fatalf("the example's post: %+v", e.messagesWith(t, "CI on main"))
	}
	cards := e.query(t, nostr.Filter{Kinds: []int{kinds.Message}, Tags: nostr.TagMap{"q": {first.Run}}})
	if len(cards) != 1 || !strings.HasPrefix(cards[0].Content, "▶ ci-notify · run "+first.Run[:8]+" (webhook workflow_run)") {
		t.Fatalf("card: %+v", cards)
	}

	dup := postHook(t, h.URL, githubHeaders(h.Secret, "workflow_run", "gh-1", body), body)
	if dup.Code != 200 || !dup.Duplicate || dup.Delivery != first.Delivery || dup.Run != first.Run {
		t.Fatalf("the same delivery again: %d %s (first %s)", dup.Code, dup.Raw, first.Raw)
	}

	// hook send: Standard Webhooks, a body whose type names the event
	secretFile := e.writeFile(t, "hook.secret", h.Secret+"\n")
	bodyFile := e.writeFile(t, "body.json", `{"type":"workflow_run","action":"completed","workflow_run":{"name":"Lint","head_branch":"dev","conclusion":"failure","html_url":"https://ci.example.com/runs/8"}}`)
	out := e.c.ok("workflow", "hook", "send", h.URL, "--secret-file", secretFile, "--body", bodyFile, "--id", "msg_1", "--json")
	var sent struct{ Delivery, Run string }
	if json.Unmarshal([]byte(out), &sent) != nil || len(sent.Run) != 64 {
		t.Fatalf("hook send: %s", out)
	}
	if rec := e.waitFinal(t, sent.Run, 20*time.Second); rec.Status != kinds.RunFinished {
		t.Fatalf("the sent run ended %s: %s", rec.Status, rec.Reason)
	}
	if posts := e.messagesWith(t, "❌ Lint on dev: failure"); len(posts) != 1 {
		t.Fatalf("the sent delivery's post: %+v", posts)
	}
	out = e.c.ok("workflow", "hook", "send", h.URL, "--secret-file", secretFile, "--body", bodyFile, "--id", "msg_1")
	if want := fmt.Sprintf("a duplicate: stored before as delivery %s (run %s)", sent.Delivery, sent.Run); strings.TrimSpace(out) != want {
		t.Fatalf("hook send again:\n got %q\nwant %q", out, want)
	}
	if n := len(e.deliveries(t, "ci-notify")); n != 2 {
		t.Fatalf("%d deliveries stored, want 2", n)
	}
	if n := len(e.claims(t, "ci-notify")); n != 2 {
		t.Fatalf("%d runs claimed, want 2", n)
	}
	if n := len(e.messagesWith(t, " on ")); n != 2 {
		t.Fatalf("%d posts, want 2", n)
	}
}

// Every refusal of POST /hook/<id>, against the real binary: a bad
// signature, an unknown hook, a timestamp outside 5 minutes, a rotated-away
// secret, a disabled workflow and a deleted hook all get the same 401
// {"error":"not accepted"} and store nothing; a body over 64 KiB is 413;
// the same delivery sent 8 times at once is one delivery and one run; past
// the per-address bound, 429.
func TestWorkflowWebhookRefusals(t *testing.T) {
	e := newWorkflowEnv(t)
	e.apply(t, "hooked", hookedWorkflow+`  - id: say
    post: 'got ${{ webhook.delivery }}: ${{ webhook.body.n }}'
`)
	h := e.makeHook(t, "hooked")
	e.serve(t)
	body := []byte(`{"n":1}`)
	now := time.Now()
	refused := map[string]hookAnswer{
		"bad signature": postHook(t, h.URL, standardHeaders(t, "whsec_"+strings.Repeat("A", 43)+"=", "m1", now, body), body),
		"unknown hook":  postHook(t, strings.Replace(h.URL, h.Hook, strings.Repeat("0", 32), 1), standardHeaders(t, h.Secret, "m1", now, body), body),
		"malformed id":  postHook(t, h.URL+"x", standardHeaders(t, h.Secret, "m1", now, body), body),
		"stale":         postHook(t, h.URL, standardHeaders(t, h.Secret, "m1", now.Add(-6*time.Minute), body), body),
		"future":        postHook(t, h.URL, standardHeaders(t, h.Secret, "m1", now.Add(6*time.Minute), body), body),
		"unsigned":      postHook(t, h.URL, nil, body),
		"github, wrong": postHook(t, h.URL, githubHeaders(h.Secret+"x", "push", "g1", body), body),
	}
	for what, a := range refused {
		if a.Code != 401 || a.Raw != notAccepted {
			t.Errorf("%s: %d %q, want 401 %q", what, a.Code, a.Raw, notAccepted)
		}
	}
	if n := len(e.deliveries(t, "hooked")); n != 0 {
		t.Fatalf("refused requests stored %d deliveries", n)
	}

	big := []byte(`{"n":"` + strings.Repeat("x", 64<<10) + `"}`)
	if a := postHook(t, h.URL, standardHeaders(t, h.Secret, "m-big", now, big), big); a.Code != 413 || a.Error != "the body is over 64 KiB" {
		t.Fatalf("a body over 64 KiB: %d %s", a.Code, a.Raw)
	}

	// the same delivery 8 times at once: one stored, one run
	same := postAtOnce(t, []string{h.URL}, standardHeaders(t, h.Secret, "m-same", now, body), body, 8)
	e.ranOnce(t, "hooked", same.Run, "got m-same: 1")

	// rotate: the old secret stops working, the URL stays
	r := e.makeHook(t, "hooked", "--rotate")
	if r.URL != h.URL || r.Secret == "" || r.Secret == h.Secret {
		t.Fatalf("rotate: %+v", r)
	}
	if a := postHook(t, h.URL, standardHeaders(t, h.Secret, "m-old", now, body), body); a.Code != 401 || a.Raw != notAccepted {
		t.Fatalf("the rotated-away secret: %d %s", a.Code, a.Raw)
	}
	if a := postHook(t, h.URL, standardHeaders(t, r.Secret, "m-new", now, body), body); a.Code != 202 {
		t.Fatalf("the new secret: %d %s", a.Code, a.Raw)
	}
	// disabled: 401, nothing stored; enabled again: taken
	e.c.ok("workflow", "disable", "hooked", "--profile", "alice")
	if a := postHook(t, h.URL, standardHeaders(t, r.Secret, "m-off", now, body), body); a.Code != 401 || a.Raw != notAccepted {
		t.Fatalf("a disabled workflow: %d %s", a.Code, a.Raw)
	}
	// deleted: 401
	e.c.ok("workflow", "enable", "hooked", "--profile", "alice")
	e.c.ok("workflow", "hook", "hooked", "--delete", "--profile", "alice")
	if a := postHook(t, h.URL, standardHeaders(t, r.Secret, "m-gone", now, body), body); a.Code != 401 || a.Raw != notAccepted {
		t.Fatalf("a deleted hook: %d %s", a.Code, a.Raw)
	}
	if n := len(e.deliveries(t, "hooked")); n != 2 {
		t.Fatalf("%d deliveries stored, want 2 (m-same, m-new)", n)
	}

	// 429: past the per-address bound (60 a minute), whatever the hook
	var last hookAnswer
	for i := 0; i < 61 && last.Code != 429; i++ {
		last = postHook(t, h.URL, nil, body)
	}
	if last.Code != 429 || last.Error != "too many requests: retry later" {
		t.Fatalf("after 61 requests: %d %s", last.Code, last.Raw)
	}
}
