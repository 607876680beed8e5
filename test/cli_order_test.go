package test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// writeKeyFile saves k as a plain key file for the CLI.
func writeKeyFile(t *testing.T, k key) string {
	t.Helper()
	ks, err := identity.KeysFromSecretHex(k.sk)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "member.key")
	if err := identity.SaveKeyFile(path, ks, identity.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// answer signs the agent's reply to q at created_at q's plus skew (seconds),
// re-signing until its id sorts before q's: the hub's order for ties (and a
// reader going by id) would put it first.
func answer(t *testing.T, agent key, q rowJSON, skew int64, text string) *nostr.Event {
	t.Helper()
	for i := 0; ; i++ {
		ev := agent.sign(t, 9, text, nostr.Tag{"h", q.Channel}, nostr.Tag{"e", q.ID, "", "root"}, nostr.Tag{"p", q.Author, "", "reply"})
		ev.CreatedAt = nostr.Timestamp(q.CreatedAt + skew)
		ev.Tags = append(ev.Tags, nostr.Tag{"n", strings.Repeat("x", i)})
		ev.Sign(agent.sk)
		if ev.ID < q.ID {
			return ev
		}
	}
}

// `hive read` never prints an answer before its question: an agent answers
// within the same second (its id sorting first) and with a clock a second
// behind, the asker follows up on the answer, and one author's messages
// sent in a burst keep their send order. Real hive binary, real hub.
func TestReadPutsAnswersAfterQuestions(t *testing.T) {
	h, tm := startTeam(t)
	createChannel(t, tm.a, tm.alice, "qa", "open")
	tm.b.must(tm.bob.sign(t, 9021, "", nostr.Tag{"h", "qa"}))
	tm.a.must(tm.alice.sign(t, 9000, "", nostr.Tag{"h", "qa"}, nostr.Tag{"p", tm.agent.pk, "bot"}))
	c := newCLI(t)
	as := []string{"--hub", h.URL, "--key", writeKeyFile(t, tm.bob), "--json"}

	var want [][2]string // question, then what must come after it
	for i, skew := range []int64{0, 0, -1} {
		var q rowJSON
		json.Unmarshal([]byte(c.ok(append([]string{"send", "qa", "question " + string(rune('A'+i))}, as...)...)), &q)
		a := tm.ag.must(answer(t, tm.agent, q, skew, "answer "+string(rune('A'+i))))
		want = append(want, [2]string{q.ID, a.ID})
		if skew < 0 { // the asker answers the answer: after both
			var f rowJSON
			json.Unmarshal([]byte(c.ok(append([]string{"send", "qa", "thanks", "--reply-to", a.ID[:8]}, as...)...)), &f)
			want = append(want, [2]string{a.ID, f.ID})
		}
	}
	var burst []string
	for _, text := range []string{"one", "two", "three", "four"} {
		var r rowJSON
		json.Unmarshal([]byte(c.ok(append([]string{"send", "qa", text}, as...)...)), &r)
		burst = append(burst, r.ID)
	}
	for i := 1; i < len(burst); i++ {
		want = append(want, [2]string{burst[i-1], burst[i]})
	}

	got := rows(t, c.ok(append([]string{"read", "qa"}, as...)...))
	pos := map[string]int{}
	for i, r := range got {
		pos[r.ID] = i
	}
	for _, w := range want {
		a, okA := pos[w[0]]
		b, okB := pos[w[1]]
		if !okA || !okB || a >= b {
			var lines []string
			for _, r := range got {
				lines = append(lines, r.ID[:8]+" "+r.Text)
			}
			t.Fatalf("read printed %s (at %d) and %s (at %d); want the first before the second:\n%s", w[0][:8], a, w[1][:8], b, strings.Join(lines, "\n"))
		}
	}
}
