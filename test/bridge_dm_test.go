package test

import (
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
)

// `hive dm AGENT TEXT` opens the DM channel with the agent (reused by the
// next one), the running bridge follows it, and every message there is
// answered without a mention.
func TestBridgeDMAnsweredWithoutMention(t *testing.T) {
	e, b := startScripted(t)
	aliceKey := e.aliceKeyFile(t)
	agentNpub := (identity.Keys{PublicHex: e.agent.pk}).Npub()
	dm := client.DMChannelID(e.alice.pk, e.agent.pk)
	for i, text := range []string{"first dm, no mention", "second dm, same channel"} {
		out := hiveCmd(t, "dm", agentNpub, text, "--hub", e.h.URL, "--key", aliceKey, "--json")
		if !strings.Contains(out, dm) {
			t.Fatalf("hive dm did not post in %s: %s", dm, out)
		}
		var id string
		for deadline := time.Now().Add(20 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			for _, ev := range e.replies(t, dm) {
				if strings.Contains(ev.Content, text) {
					id = ev.ID
				}
			}
		}
		if id == "" {
			t.Fatalf("dm %d (%q) got no answer in %s; bridge log:\n%s", i, text, dm, b.logs())
		}
	}
}
