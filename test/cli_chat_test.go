package test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type rowJSON struct {
	Op        string `json:"op"`
	ID        string `json:"id"`
	Channel   string `json:"channel"`
	Author    string `json:"author"`
	CreatedAt int64  `json:"created_at"`
	Text      string `json:"text"`
	System    bool   `json:"system"`
	Edited    bool   `json:"edited"`
	ReplyTo   string `json:"reply_to"`
	Reactions []struct {
		Emoji string   `json:"emoji"`
		Count int      `json:"count"`
		Who   []string `json:"who"`
	} `json:"reactions"`
	Replies  int      `json:"replies"`
	Mentions []string `json:"mentions"`
	Name     string   `json:"name"`
	Label    string   `json:"label"`
	Shown    string   `json:"shown"`
}

// reactions is a row's count per emoji.
func (r rowJSON) reactions() map[string]int {
	out := map[string]int{}
	for _, rx := range r.Reactions {
		out[rx.Emoji] = rx.Count
	}
	return out
}

// rows are the message rows of NDJSON output (system rows left out: see
// allRows).
func rows(t testing.TB, out string) []rowJSON {
	t.Helper()
	var msgs []rowJSON
	for _, r := range allRows(t, out) {
		if !r.System {
			msgs = append(msgs, r)
		}
	}
	return msgs
}

func allRows(t testing.TB, out string) []rowJSON {
	t.Helper()
	var rs []rowJSON
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var r rowJSON
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not NDJSON: %q", l)
		}
		rs = append(rs, r)
	}
	return rs
}

// tailProc is a running `hive tail --follow --json`: the rows it prints
// after its history, system rows left out.
type tailProc struct {
	t    testing.TB
	rows chan rowJSON
}

// tail follows channel as profile from now on.
func (c *cli) tail(t testing.TB, profile, channel string) *tailProc {
	t.Helper()
	cmd := exec.Command(binary(t), "tail", channel, "--follow", "--json", "--limit", "1", "--profile", profile)
	cmd.Env = append(append(os.Environ(), "HIVE_HOME="+c.home), c.env...)
	lines := stdoutLines(t, cmd)
	// tail takes its since before it prints the history (the newest row
	// before the follow, not one of the rows followed): what is sent once
	// that line is out is followed
	select {
	case _, ok := <-lines:
		if !ok {
			t.Fatal("tail --follow ended before it printed its history")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("tail --follow printed no history")
	}
	p := &tailProc{t: t, rows: make(chan rowJSON, 100)}
	go func() {
		for l := range lines {
			var r rowJSON
			if json.Unmarshal([]byte(l), &r) == nil && !r.System {
				p.rows <- r
			}
		}
		close(p.rows)
	}()
	return p
}

// next waits for the next added row whose text is text.
func (p *tailProc) next(text string) rowJSON {
	p.t.Helper()
	return p.until("a row "+text, func(r rowJSON) bool { return r.Op == "" && r.Text == text })
}

// nextRow waits for the next row, whatever its op.
func (p *tailProc) nextRow() rowJSON {
	p.t.Helper()
	return p.until("row", func(rowJSON) bool { return true })
}

// until waits for the next row (any op) for which pred is true.
func (p *tailProc) until(what string, pred func(rowJSON) bool) rowJSON {
	p.t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case r, ok := <-p.rows:
			if !ok {
				p.t.Fatalf("hive tail ended before %s", what)
			}
			if pred(r) {
				return r
			}
		case <-deadline:
			p.t.Fatalf("hive tail printed no %s within %s", what, waitTimeout)
		}
	}
}

// Two members chat through the real binary over wss: member add, channel
// create/join, send, reply, react, edit, delete, read with overlays and
// unread counts, tail --follow, dm, wait.
func TestChatThroughCLI(t *testing.T) {
	p, pin, c := startTLSAdmin(t, filepath.Join(t.TempDir(), "hub"), "admin")
	alice, bob := newKeyProfile(c, p.URL, pin, "alice"), newKeyProfile(c, p.URL, pin, "bob")
	// not yet a member: refused with exit 3
	if _, errOut, code := c.run("channel", "list", "--profile", "alice"); code != 3 {
		t.Fatalf("non-member: exit %d %s", code, errOut)
	}
	c.ok("member", "add", alice.Npub, "--profile", "admin")
	c.ok("member", "add", bob.Npub, "--profile", "admin")
	c.ok("profile", "name", "alice", "--profile", "alice")
	c.ok("profile", "name", "bob", "--profile", "bob")
	members := c.ok("member", "list", "--profile", "admin", "--json")
	if !strings.Contains(members, alice.Npub) || !strings.Contains(members, bob.Npub) {
		t.Fatalf("member list: %s", members)
	}
	c.ok("channel", "create", "General Chat", "--profile", "alice")
	if _, _, code := c.run("channel", "create", "Another", "--id", "general-chat", "--profile", "alice"); code != 5 {
		t.Fatalf("second create: exit %d, want 5", code)
	}
	c.ok("channel", "join", "general-chat", "--profile", "bob")

	// bob follows by name
	tail := c.tail(t, "bob", "General Chat")

	first := rows(t, c.ok("send", "general-chat", "hello bob", "--profile", "alice", "--json"))[0]
	cmd := exec.Command(binary(t), "send", "general-chat", "-", "--profile", "alice", "--json", "--reply-to", first.ID)
	cmd.Env = append(os.Environ(), "HIVE_HOME="+c.home)
	cmd.Stdin = strings.NewReader("from stdin\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	reply := rows(t, string(out))[0]
	if reply.ReplyTo != first.ID || reply.Text != "from stdin" {
		t.Fatalf("reply %+v", reply)
	}
	for _, want := range []string{first.ID, reply.ID} {
		if r := tail.nextRow(); r.Op != "" || r.ID != want { // live rows come in commit order
			t.Fatalf("tail got %+v, want the row %s", r, want)
		}
	}
	// unread for bob: 2 content rows by alice; reactions, edits and deleted rows never count
	c.ok("react", first.ID[:8], "+", "--profile", "bob") // the short id read and tail print
	c.ok("edit", first.ID, "hello bob (edited)", "--profile", "alice")
	third := rows(t, c.ok("send", "general-chat", "delete me", "--profile", "alice", "--json"))[0]
	c.ok("delete", third.ID, "--profile", "alice")
	// tail --follow shows the reaction, the edit and the delete live
	for _, want := range []struct{ op, id string }{{"reacted", first.ID}, {"edited", first.ID}, {"", third.ID}, {"deleted", third.ID}} {
		r := tail.nextRow()
		if r.Op != want.op || r.ID != want.id || (r.Op == "reacted" && r.reactions()["+"] != 1) || (r.Op == "edited" && r.Text != "hello bob (edited)") {
			t.Fatalf("tail --follow printed %+v, want op %q on %s", r, want.op, want.id)
		}
	}
	var ch struct {
		ID     string
		Unread *int
	}
	json.Unmarshal([]byte(c.ok("channel", "list", "--profile", "bob", "--json")), &ch)
	if ch.ID != "general-chat" || ch.Unread == nil || *ch.Unread != 2 {
		t.Fatalf("bob's unread before read: %+v", ch)
	}
	readOut := c.ok("read", "general-chat", "--profile", "bob", "--json")
	hist := rows(t, readOut)
	// a reply comes after what it answers, whatever their ids
	if len(hist) != 2 || hist[0].ID != first.ID || hist[0].Text != "hello bob (edited)" || !hist[0].Edited || hist[0].reactions()["+"] != 1 ||
		hist[0].Replies != 1 || hist[0].Name != "alice" || hist[1].ID != reply.ID || hist[1].Text != "from stdin" {
		t.Fatalf("read: %+v", hist)
	}
	joined := false
	for _, r := range allRows(t, readOut) {
		joined = joined || r.System && strings.HasSuffix(r.Shown, " joined")
	}
	if !joined {
		t.Fatalf("read shows no system row for bob's join: %s", readOut)
	}
	json.Unmarshal([]byte(c.ok("channel", "list", "--profile", "bob", "--json")), &ch)
	if ch.Unread == nil || *ch.Unread != 0 {
		t.Fatalf("bob's unread after read: %+v", ch)
	}
	// wait: bob waits for alice's reply to his question
	q := rows(t, c.ok("send", "general-chat", "question?", "--profile", "bob", "--json"))[0]
	waitOut := make(chan string, 1)
	go func() {
		o, _, code := c.run("wait", "--reply-to", q.ID, "--from", alice.Npub, "--timeout", "20s", "--profile", "bob", "--json")
		if code != 0 {
			o = ""
		}
		waitOut <- o
	}()
	// no wait for wait's subscription: it reads from the question's
	// created_at, so an answer stored before its REQ is found too
	ans := rows(t, c.ok("send", "general-chat", "answer", "--reply-to", q.ID, "--profile", "alice", "--json"))[0]
	if got := <-waitOut; got == "" || rows(t, got)[0].ID != ans.ID {
		t.Fatalf("wait printed %q, want %s", got, ans.ID)
	}
	if _, _, code := c.run("wait", "--reply-to", q.ID, "--from", bob.Npub, "--timeout", "1s", "--profile", "bob"); code != 6 {
		t.Fatalf("wait timeout: exit %d, want 6", code)
	}
	// dm, and errors by the contract
	dm := rows(t, c.ok("dm", "bob", "psst", "--profile", "alice", "--json"))[0] // a name for the key
	if got := rows(t, c.ok("read", dm.Channel, "--profile", "bob", "--json")); len(got) != 1 || got[0].Text != "psst" {
		t.Fatalf("bob's dm: %+v", got)
	}
	// tail takes every channel of yours at once
	chans := map[string]bool{}
	for _, r := range rows(t, c.ok("tail", "--all", "--limit", "1", "--profile", "bob", "--json")) {
		chans[r.Channel] = true
	}
	if len(chans) != 2 || !chans["general-chat"] || !chans[dm.Channel] {
		t.Fatalf("tail --all: channels %v", chans)
	}
	// @name in the text is a mention; send says who sent it
	if sent := c.ok("send", "general-chat", "@bob have a look", "--profile", "alice"); !strings.HasPrefix(sent, "sent ") || !strings.HasSuffix(sent, " to general-chat as alice\n") {
		t.Fatalf("send said %q", sent)
	}
	if got := rows(t, c.ok("tail", "general-chat", "--limit", "1", "--profile", "bob", "--json")); len(got) != 1 || len(got[0].Mentions) != 1 || got[0].Shown != "@bob have a look" {
		t.Fatalf("@bob is no mention: %+v", got)
	}
	// bob's unread in general-chat: alice's answer to his question (a reply
	// to him) and the @bob message, both mentions
	var gc struct {
		ID       string
		Unread   *int
		Mentions *int
	}
	for _, l := range strings.Split(strings.TrimSpace(c.ok("channel", "list", "--profile", "bob", "--json")), "\n") {
		if json.Unmarshal([]byte(l), &gc) == nil && gc.ID == "general-chat" {
			break
		}
	}
	if gc.Unread == nil || *gc.Unread != 2 || gc.Mentions == nil || *gc.Mentions != 2 {
		t.Fatalf("bob's general-chat: %+v", gc)
	}
	// a name two keys have is ambiguous: the error lists both
	var carol struct{ Npub string }
	json.Unmarshal([]byte(c.ok("profile", "add", "carol", "--hub", p.URL, "--pin", pin, "--new-key", "--json")), &carol)
	c.ok("member", "add", carol.Npub, "--profile", "admin")
	c.ok("profile", "name", "Bob", "--profile", "carol")
	if _, errOut, code := c.run("dm", "bob", "hi", "--profile", "alice"); code != 5 || !strings.Contains(errOut, `2 keys are named "bob": give one of them`) || !strings.Contains(errOut, bob.Npub) || !strings.Contains(errOut, carol.Npub) {
		t.Fatalf("ambiguous name: exit %d %s", code, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"send", "no-such-channel", "x", "--profile", "bob"}, 4},
		{[]string{"read", "general-chat", "--limit", "0", "--profile", "bob"}, 1},
		{[]string{"edit", first.ID, "not mine", "--profile", "bob"}, 3},
		{[]string{"react", strings.Repeat("0", 64), "--profile", "bob"}, 4},
		{[]string{"send", "general-chat", "x", "--profile", "bob", "--hub", "wss://127.0.0.1:1"}, 2},
	} {
		_, errOut, code := c.run(append(tc.args, "--json")...)
		if code != tc.code {
			t.Errorf("hive %s: exit %d, want %d: %s", strings.Join(tc.args, " "), code, tc.code, errOut)
		}
	}
	_ = io.Discard
}
