package test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
)

// `hive wait --reply-to ID --from AGENT` for a mention the agent answered in
// a batch: the batch's reply goes under its newest mention and quotes (q)
// the older one, and wait prints it for either. Before, wait took only a
// reply naming ID as its target and timed out (exit 6) on the older
// mention, as if it were never answered.
func TestWaitForBatchedMention(t *testing.T) {
	e := newBridgeEnv(t)
	logPath := filepath.Join(e.dir, "prompts.log")
	e.config(t, []string{goTool(t, "acpagent")}, fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_LOG = %q }", filepath.Join(e.dir, "sessions"), logPath))
	b := e.start(t)
	a1 := e.mention(t, e.a, e.alice, "room", "[[slow:1500ms]] a1")
	waitLog(t, logPath, 1)
	a2 := e.mention(t, e.a, e.alice, "room", "a2")
	a3 := e.mention(t, e.a, e.alice, "room", "a3")
	e.waitReply(t, "room", a1.ID, 20*time.Second, b)
	aliceKey := e.aliceKeyFile(t)
	agent := (identity.Keys{PublicHex: e.agent.pk}).Npub()
	for _, id := range []string{a2.ID, a3.ID} {
		out, code := hiveExit(t, "wait", "--reply-to", id, "--from", agent, "--timeout", "20s", "--hub", e.h.URL, "--key", aliceKey, "--json")
		if code != 0 || !strings.Contains(out, "heard 2: a2 | a3") {
			t.Fatalf("hive wait --reply-to %s: exit %d\n%s", id[:8], code, out)
		}
	}
}
