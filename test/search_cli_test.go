package test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchCLI: hive search as a new user runs it (the README's section),
// over the real binary on either log: text and --json results with
// channel, author name, excerpt and id, --channel, --from, an edit found by
// its new text, a query the hub refuses, hive read --around ID, and the
// index in hive status --data.
func TestSearchCLI(t *testing.T) {
	data := filepath.Join(t.TempDir(), "hub")
	args := []string{"--tls", "self-signed"}
	if onPostgres() {
		args = append(args, "--store", pg.DSN(t))
	}
	p := startProc(t, data, freeAddr(t), args...)
	pin := pinRe.FindString(p.logs())
	url := strings.Replace(p.URL, "ws://", "wss://", 1)
	c := newCLI(t)
	c.ok("profile", "add", "admin", "--hub", url, "--pin", pin, "--key", filepath.Join(data, "admin.key"))
	var alice, bob struct{ Npub string }
	json.Unmarshal([]byte(c.ok("profile", "add", "alice", "--hub", url, "--pin", pin, "--new-key", "--json")), &alice)
	json.Unmarshal([]byte(c.ok("profile", "add", "bob", "--hub", url, "--pin", pin, "--new-key", "--json")), &bob)
	c.ok("member", "add", alice.Npub, "--profile", "admin")
	c.ok("member", "add", bob.Npub, "--profile", "admin")
	c.ok("channel", "create", "general", "--profile", "alice")
	c.ok("channel", "join", "general", "--profile", "bob")
	c.ok("channel", "create", "random", "--profile", "bob")
	send := func(ch, who, text string) rowJSON {
		return rows(t, c.ok("send", ch, text, "--profile", who, "--json"))[0]
	}
	send("general", "alice", "hello bob")
	draft := send("general", "alice", "a longer note, still a draft")
	send("general", "alice", "the final note about the release")
	send("random", "bob", "a note of my own")
	c.ok("edit", draft.ID, "a longer note about the budget", "--profile", "alice")

	out := c.ok("search", "note -draft", "--profile", "bob")
	if !strings.Contains(out, " "+draft.ID[:8]+" #general ") || !strings.Contains(out, "[note]") || !strings.Contains(out, "(edited)") {
		t.Fatalf("hive search text output lacks the channel, author name, marked excerpt, edit or id:\n%s", out)
	}
	var hits []struct {
		rowJSON
		ChannelName string `json:"channel_name"`
		Label       string `json:"label"`
		Excerpt     string `json:"excerpt"`
	}
	for _, l := range strings.Split(strings.TrimSpace(c.ok("search", "note", "--from", alice.Npub, "--channel", "general", "--json", "--profile", "bob")), "\n") {
		var h struct {
			rowJSON
			ChannelName string `json:"channel_name"`
			Label       string `json:"label"`
			Excerpt     string `json:"excerpt"`
		}
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			t.Fatalf("not NDJSON: %q", l)
		}
		hits = append(hits, h)
	}
	if len(hits) != 2 || hits[0].ChannelName != "general" || hits[0].Label == "" || hits[0].CreatedAt == 0 {
		t.Fatalf("--from alice --channel general --json: %+v", hits)
	}
	for _, h := range hits {
		if h.ID == draft.ID && (h.Text != "a longer note about the budget" || !h.Edited || !strings.Contains(h.Excerpt, "[note]")) {
			t.Fatalf("the edited hit: %+v", h)
		}
	}
	if out := c.ok("search", "budget", "--profile", "bob", "--json"); !strings.Contains(out, draft.ID) {
		t.Fatalf("the edit's new text finds nothing: %s", out)
	}
	if _, errOut, _ := c.run("search", "draft", "--profile", "bob"); !strings.Contains(errOut, "no messages match") {
		t.Fatalf("the edit's old text: %q", errOut)
	}
	_, errOut, code := c.run("search", `"release`, "--profile", "bob")
	if code != 1 || !strings.Contains(errOut, "invalid: search: a quoted phrase is not closed") || !strings.Contains(errOut, "hive search --help") {
		t.Fatalf("bad syntax: exit %d %q", code, errOut)
	}
	// the messages were sent within a second or two: all three of general,
	// none of random, the edit applied
	around := rows(t, c.ok("read", "--around", draft.ID, "--limit", "5", "--profile", "bob", "--json"))
	found := false
	for _, r := range around {
		found = found || (r.ID == draft.ID && r.Text == "a longer note about the budget" && r.Edited)
		if r.Channel != "general" {
			t.Fatalf("read --around printed a row of %s", r.Channel)
		}
	}
	if len(around) != 3 || !found {
		t.Fatalf("read --around: %+v", around)
	}
	if !onPostgres() {
		if out := c.ok("status", "--data", data); !strings.Contains(out, "search:   ready") {
			t.Fatalf("status --data shows no search index:\n%s", out)
		}
	}
}
