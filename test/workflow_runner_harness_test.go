package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// wfEnv is a hub (the real binary), alice (hub admin, owner of channel ops)
// and bob in ops, and a runner key attested by alice and added to ops, with
// its config: what `hive workflow serve` needs.
type wfEnv struct {
	p          *hubProc
	hub, pin   string  // the hub's websocket URL, and its TLS pin ("" without TLS)
	web        *webHub // the TLS hub of newWorkflowEnvAt(t, true, ...)
	c          *cli
	tm         cliTeam
	dir        string
	config     string
	runnerNpub string
	runnerHex  string
	alice      *client.Client // alice's connection, for what the test reads
	aliceHex   string
}

func newWorkflowEnv(t *testing.T) *wfEnv {
	t.Helper()
	return newWorkflowEnvOf(t, "bob")
}

// newWorkflowEnvOf is newWorkflowEnv with these members besides alice.
func newWorkflowEnvOf(t *testing.T, members ...string) *wfEnv {
	t.Helper()
	return newWorkflowEnvAt(t, false, members...)
}

// newWorkflowEnvAt is newWorkflowEnvOf over a TLS hub (self-signed, its
// pin trusted) when tls, as the web chat's tests need.
func newWorkflowEnvAt(t *testing.T, tls bool, members ...string) *wfEnv {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "hub")
	e := &wfEnv{dir: dir}
	if tls {
		e.web = startWebHubAt(t, data, freeAddr(t))
		e.p, e.hub, e.pin = e.web.hubProc, e.web.WS, e.web.Pin
	} else {
		e.p = startProc(t, data, freeAddr(t))
		e.hub = e.p.URL
	}
	return e.team(t, filepath.Join(data, "admin.key"), members...)
}

// workflowEnvOn is newWorkflowEnv on a hub already running (p, whose
// admin's key file is adminKey), in dir.
func workflowEnvOn(t *testing.T, dir string, p *hubProc, adminKey string) *wfEnv {
	t.Helper()
	e := &wfEnv{dir: dir, p: p, hub: p.URL}
	return e.team(t, adminKey, "bob")
}

// team sets up alice, the members, ops and the runner on e's hub.
func (e *wfEnv) team(t *testing.T, adminKey string, members ...string) *wfEnv {
	t.Helper()
	e.c = newCLI(t)
	e.tm = setUpCLITeam(t, e.c, cliTeamSpec{hub: e.hub, pin: e.pin, admin: "alice", adminKey: adminKey, nameAdmin: true,
		members: members, creator: "alice", channels: []string{"ops"}})
	rk := filepath.Join(e.dir, "runner.key")
	var k struct{ Npub string }
	json.Unmarshal([]byte(e.c.ok("key", "new", "--out", rk, "--json")), &k)
	e.runnerNpub = k.Npub
	e.runnerHex, _ = identity.ParsePublicKey(k.Npub)
	var att struct{ Tag json.RawMessage }
	json.Unmarshal([]byte(e.c.ok("agent", "attest", "--key", adminKey, "--agent", k.Npub, "--expires", "2h", "--not-before", "none", "--json")), &att)
	os.WriteFile(filepath.Join(e.dir, "runner.tag"), append(att.Tag, '\n'), 0o600)
	e.c.ok("channel", "add", "ops", k.Npub, "--profile", "alice")
	e.config = filepath.Join(e.dir, "runner.toml")
	os.WriteFile(e.config, []byte(fmt.Sprintf("hub = %q\npin = %q\nkey = \"runner.key\"\nattestation = \"runner.tag\"\nstate_dir = \"state\"\n", e.hub, e.pin)), 0o600)
	keys, err := identity.LoadKeyFile(adminKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.aliceHex = keys.PublicHex
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if e.alice, err = client.Connect(ctx, client.Options{URLs: []string{e.hub}, Pin: e.pin, Keys: keys}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.alice.Close)
	return e
}

// apply publishes a workflow file as alice, bound to the runner.
func (e *wfEnv) apply(t *testing.T, name, src string) {
	t.Helper()
	e.c.ok("workflow", "apply", workflowFile(t, name, src), "--runner", e.runnerNpub, "--profile", "alice")
}

// runnerProc is a running `hive workflow serve`.
type runnerProc struct{ *logged }

// serve starts the runner and waits until it follows the hub (its
// subscription's stored events are in).
func (e *wfEnv) serve(t *testing.T, args ...string) *runnerProc {
	t.Helper()
	return e.serveEnv(t, nil, args...)
}

// serveEnv is serve with env added to the runner's environment.
func (e *wfEnv) serveEnv(t *testing.T, env []string, args ...string) *runnerProc {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"workflow", "serve", "--config", e.config}, args...)...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), env...)
	rp := &runnerProc{startLogged(t, cmd, "runner following", 20*time.Second)}
	t.Cleanup(func() {
		if rp.cmd.ProcessState == nil {
			rp.cmd.Process.Kill()
			rp.cmd.Wait()
		}
	})
	return rp
}

func (rp *runnerProc) kill9() {
	rp.cmd.Process.Signal(os.Kill)
	rp.cmd.Wait()
}

// waitLog waits until the runner's log has a line containing s.
func (rp *runnerProc) waitLog(t *testing.T, s string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(rp.logs(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the runner never logged %q:\n%s", s, rp.logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// query reads stored events as alice.
func (e *wfEnv) query(t *testing.T, f nostr.Filter) []nostr.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	evs, err := e.alice.Query(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// post publishes a message in ops as alice.
func (e *wfEnv) post(t *testing.T, text string, tags ...nostr.Tag) nostr.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev := client.Message("ops", text)
	ev.Tags = append(ev.Tags, tags...)
	signed, err := e.alice.Publish(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// waitFinal waits for the final record of run (by the runner).
func (e *wfEnv) waitFinal(t *testing.T, run string, within time.Duration) client.RunRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	rec, err := e.alice.WaitRun(ctx, run, e.runnerHex, nil)
	if err != nil {
		t.Fatalf("run %s did not end: %v", run, err)
	}
	return rec
}

// records are the stored records of run, oldest first.
func (e *wfEnv) records(t *testing.T, run string) []client.RunRecord {
	t.Helper()
	evs := e.query(t, nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{kinds.RunTag: {run}}})
	sort.Slice(evs, func(i, j int) bool { return kinds.AtMillis(&evs[i]) < kinds.AtMillis(&evs[j]) })
	var out []client.RunRecord
	for _, ev := range evs {
		if rec, _, ok := client.ParseRunRecord(ev); ok {
			out = append(out, rec)
		}
	}
	return out
}

// statuses spells records as "status[/step:outcome]" joined by spaces.
func statuses(recs []client.RunRecord) string {
	var s []string
	for _, r := range recs {
		x := r.Status
		if r.Step != "" {
			x += "/" + r.Step + ":" + r.Outcome
		}
		s = append(s, x)
	}
	return strings.Join(s, " ")
}

// messagesWith are the stored messages of ops whose text contains s.
func (e *wfEnv) messagesWith(t *testing.T, s string) []nostr.Event {
	t.Helper()
	var out []nostr.Event
	for _, ev := range e.query(t, nostr.Filter{Kinds: []int{kinds.Message}, Tags: nostr.TagMap{"h": {"ops"}}}) {
		if strings.Contains(ev.Content, s) {
			out = append(out, ev)
		}
	}
	return out
}

// address is the coordinate of alice's workflow name.
func (e *wfEnv) address(name string) string { return client.WorkflowAddress(e.aliceHex, name) }

// messageRun is the id of the run a message starts in alice's workflow name.
func (e *wfEnv) messageRun(name string, msg nostr.Event) string {
	return client.RunClaim(e.runnerHex, "ops", e.address(name), client.TriggerMessage, msg.ID, msg.CreatedAt, client.HopsOf(msg)+1).ID
}

// claims are the runner's stored claims of alice's workflow name.
func (e *wfEnv) claims(t *testing.T, name string) []nostr.Event {
	t.Helper()
	return e.query(t, nostr.Filter{Kinds: []int{kinds.RunClaim}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{"a": {e.address(name)}}})
}

// waitRecord waits for a record of run that pred accepts.
func (e *wfEnv) waitRecord(t *testing.T, run string, within time.Duration, pred func(client.RunRecord) bool) client.RunRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	sub, err := e.alice.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{e.runnerHex}, Tags: nostr.TagMap{kinds.RunTag: {run}}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for {
		select {
		case ev := <-sub.Events():
			if rec, _, ok := client.ParseRunRecord(ev); ok && pred(rec) {
				return rec
			}
		case <-ctx.Done():
			t.Fatalf("run %s: no such record within %v; records: %s", run, within, statuses(e.records(t, run)))
		}
	}
}

// runID starts a manual run of name as bob and returns its id.
func (e *wfEnv) runID(t *testing.T, name string, args ...string) string {
	t.Helper()
	out := e.c.ok(append([]string{"workflow", "run", name, "--profile", "bob"}, args...)...)
	return strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
}

// as connects as a member profile of the team (its key file).
func (e *wfEnv) as(t *testing.T, profile string) *client.Client {
	t.Helper()
	keys, err := identity.LoadKeyFile(e.tm.keys[profile], nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Options{URLs: []string{e.hub}, Pin: e.pin, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
