package test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const applyStandup = "name: standup\nchannel: ops\non:\n  schedule:\n    - cron: \"30 9 * * 1-5\"\n      timezone: Europe/Berlin\nsteps:\n  - id: prompt\n    post: Stand-up time\n"

// hive workflow apply, list, show and next NAME through the real binary and
// hub: a member who is no owner or admin of the channel is refused by the hub
// (exit 3, the reason and who may) and nothing is stored; the owner's
// definition is read by every member of the channel; a name two channels
// share exits 5 until --channel picks one.
func TestWorkflowApplyListShow(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "hub")
	p := startProc(t, data, freeAddr(t))
	c := newCLI(t)
	tm := setUpCLITeam(t, c, cliTeamSpec{hub: p.URL, admin: "alice", adminKey: filepath.Join(data, "admin.key"), nameAdmin: true,
		members: []string{"bob", "runner"}, creator: "alice", channels: []string{"ops"}})
	file := workflowFile(t, "standup", applyStandup)

	_, stderr, code := c.run("workflow", "apply", file, "--runner", "runner", "--profile", "bob")
	if code != 3 || !strings.Contains(stderr, "hive: the hub refused: restricted: only a channel owner or admin may publish a workflow in channel ops\n") ||
		!strings.Contains(stderr, "hint: ask one of alice (owner) to apply it, or to make you an admin\n") {
		t.Fatalf("bob's apply: exit %d\n%s", code, stderr)
	}
	if out := c.ok("workflow", "list", "--profile", "alice", "--json"); out != "" {
		t.Fatalf("a refused definition is listed: %s", out)
	}
	if _, stderr, code := c.run("workflow", "apply", file, "--profile", "alice"); code != 1 || !strings.Contains(stderr, "give --runner NAME|NPUB (a runner that is a member of channel ops), or start your own runner first: hive workflow serve") {
		t.Fatalf("apply without --runner: exit %d %s", code, stderr)
	}

	var applied struct{ Name, Channel, Event, Runner string }
	if err := json.Unmarshal([]byte(c.ok("workflow", "apply", file, "--runner", "runner", "--profile", "alice", "--json")), &applied); err != nil ||
		applied.Name != "standup" || applied.Channel != "ops" || len(applied.Event) != 64 || applied.Runner == "" {
		t.Fatalf("apply: %+v %v", applied, err)
	}
	var item struct {
		Name, Channel, Status, Reason, Author, Runner, Event string
		Triggers                                             []string
		Steps                                                int
	}
	if err := json.Unmarshal([]byte(c.ok("workflow", "list", "--profile", "bob", "--json")), &item); err != nil || item.Name != "standup" || item.Channel != "ops" ||
		item.Status != "active" || item.Reason != "" || item.Event != applied.Event || item.Runner != applied.Runner || item.Steps != 1 ||
		strings.Join(item.Triggers, ";") != "schedule 30 9 * * 1-5 Europe/Berlin (max_late 1h)" {
		t.Fatalf("list: %+v %v", item, err)
	}
	var shown struct {
		Name     string
		StepList []struct{ ID, Action string } `json:"step_list"`
		Next     []struct{ Local, UTC, Zone string }
		Source   string
	}
	if err := json.Unmarshal([]byte(c.ok("workflow", "show", "standup", "--profile", "bob", "--json")), &shown); err != nil || shown.Name != "standup" ||
		len(shown.StepList) != 1 || shown.StepList[0].ID != "prompt" || shown.StepList[0].Action != "post" || len(shown.Next) != 3 || shown.Next[0].Zone != "Europe/Berlin" || shown.Source != applyStandup {
		t.Fatalf("show: %+v %v", shown, err)
	}
	out := c.ok("workflow", "next", "standup", "--from", "2026-03-27T00:00:00Z", "--count", "2", "--profile", "bob", "--json")
	if want := `{"local":"2026-03-27T09:30:00+01:00","utc":"2026-03-27T08:30:00Z","zone":"Europe/Berlin","slot":"2026-03-27T09:30","cron":"30 9 * * 1-5"}` + "\n" +
		`{"local":"2026-03-30T09:30:00+02:00","utc":"2026-03-30T07:30:00Z","zone":"Europe/Berlin","slot":"2026-03-30T09:30","cron":"30 9 * * 1-5"}` + "\n"; out != want {
		t.Fatalf("next NAME:\n%s", out)
	}

	// the runner must be a member of the channel
	var dave struct{ Npub string }
	json.Unmarshal([]byte(c.ok("profile", "add", "dave", "--new-key", "--json", "--hub", p.URL)), &dave)
	c.ok("member", "add", dave.Npub, "--profile", "alice")
	if _, stderr, code := c.run("workflow", "apply", file, "--runner", dave.Npub, "--profile", "alice"); code != 1 || !strings.Contains(stderr, "runner "+dave.Npub+" is not a member of channel ops: add it with `hive channel add ops "+dave.Npub+"`") {
		t.Fatalf("runner outside the channel: exit %d %s", code, stderr)
	}

	// online checks: an agent approver is refused, an agent outside the channel is a warning
	agentKey := filepath.Join(dir, "reviewer.key")
	var agent struct{ Npub string }
	json.Unmarshal([]byte(c.ok("key", "new", "--out", agentKey, "--json")), &agent)
	var att struct{ Tag json.RawMessage }
	json.Unmarshal([]byte(c.ok("agent", "attest", "--key", filepath.Join(data, "admin.key"), "--agent", agent.Npub, "--expires", "1h", "--json")), &att)
	c.ok("agent", "profile", "--hub", p.URL, "--key", agentKey, "--auth-tag", string(att.Tag), "--name", "reviewer")
	gate := workflowFile(t, "gate", "name: gate\nchannel: ops\non: {manual: {}}\nsteps:\n  - id: gate\n    approval: {approvers: [\"@reviewer\"]}\n")
	if _, stderr, code := c.run("workflow", "apply", gate, "--runner", "runner", "--profile", "alice"); code != 1 ||
		!strings.Contains(stderr, "hive: step gate's approvers: @reviewer is an agent: agents never approve; name a person, or owner, channel-admins or channel-owners\n") {
		t.Fatalf("agent approver: exit %d %s", code, stderr)
	}
	_, stderr, code = c.run("workflow", "apply", filepath.Join("..", "examples", "workflows", "deploy.yaml"), "--runner", "runner", "--profile", "alice")
	if code != 0 || !strings.Contains(stderr, "warning: step review's agent: reviewer is not a member of channel ops: add it with `hive channel add ops reviewer`\n") {
		t.Fatalf("deploy example: exit %d %s", code, stderr)
	}

	// one name in two channels: show exits 5 listing them, --channel picks
	c.ok("channel", "create", "dev", "--profile", "bob")
	c.ok("channel", "add", "dev", tm.npub["runner"], "--profile", "bob")
	c.ok("workflow", "apply", workflowFile(t, "dev", strings.Replace(applyStandup, "channel: ops", "channel: dev", 1)), "--runner", "runner", "--profile", "bob")
	if _, stderr, code := c.run("workflow", "show", "standup", "--profile", "bob"); code != 5 || !strings.Contains(stderr, `2 workflows are named "standup" (#dev by `) || !strings.Contains(stderr, "give --channel") {
		t.Fatalf("ambiguous show: exit %d %s", code, stderr)
	}
	if out := c.ok("workflow", "show", "standup", "--channel", "ops", "--profile", "bob"); !strings.HasPrefix(out, "standup in #ops (active)\n") {
		t.Fatalf("show --channel ops:\n%s", out)
	}
}
